#include "report_printer.h"

#include <algorithm>
#include <iomanip>
#include <optional>

#include "nimble/workflow/format.h"
#include "nimble/analysis/idle_gaps.h"

namespace nimble::cli {
namespace {

using workflow::FormatDuration;
using workflow::FormatFactor;
using workflow::FormatPercent;

using analysis::GapCause;
using analysis::TimelineMetrics;

constexpr GapCause kCauses[] = {GapCause::kHostLaunchLate, GapCause::kSynchronization, GapCause::kMemoryCopy,
                                GapCause::kOther};

const char* CauseLabel(GapCause cause) {
  switch (cause) {
    case GapCause::kHostLaunchLate: return "host launched late";
    case GapCause::kSynchronization: return "synchronization";
    case GapCause::kMemoryCopy: return "memory copy";
    case GapCause::kOther: return "other";
  }
  return "?";
}

// The median iteration (analysis::MedianIteration), or null without iterations.
const TimelineMetrics* MedianIterationOf(const analysis::DeviceReport& dev) {
  const std::optional<size_t> median = analysis::MedianIteration(dev);
  return median ? &dev.iterations[*median] : nullptr;
}

void Row(std::ostream& out, const std::string& label, const std::string& a, const std::string& b = "") {
  out << "  " << std::left << std::setw(30) << label << std::right << std::setw(14) << a << std::setw(20) << b << "\n";
}

void PrintTimeline(std::ostream& out, const analysis::DeviceReport& dev) {
  const TimelineMetrics& run = dev.run;
  const TimelineMetrics* it = MedianIterationOf(dev);
  out << "\nGPU timeline, device " << run.device.value() << "\n";
  Row(out, "", "whole run", it ? "median iteration" : "");
  auto both = [&](const std::string& label, auto get) { Row(out, label, get(run), it ? get(*it) : ""); };
  both("span", [](const TimelineMetrics& m) { return FormatDuration(m.window.dur_ns()); });
  both("GPU active time", [](const TimelineMetrics& m) { return FormatDuration(m.active_ns); });
  both("GPU idle time", [](const TimelineMetrics& m) { return FormatDuration(m.idle_ns); });
  both("active ratio", [](const TimelineMetrics& m) { return FormatPercent(m.active_ratio); });
  both("overlap (>= 2 kernels)", [](const TimelineMetrics& m) { return FormatDuration(m.overlap_ns); });
  both("kernels", [](const TimelineMetrics& m) { return std::to_string(m.kernel_count); });
  if (run.graph_launch_count > 0) {
    both("graph launches (graph level)", [](const TimelineMetrics& m) { return std::to_string(m.graph_launch_count); });
  }
  both("streams used", [](const TimelineMetrics& m) { return std::to_string(m.streams.size()); });

  if (run.graph_launch_count > 0) {
    out << "  CUDA graphs were recorded at graph level (--graph-trace graph): each launch counts as busy from its\n"
           "  first node's start to its last node's end; its kernels and any gaps between them are not seen.\n";
  }

  out << "\nIdle time by cause (whole run)\n";
  out << "  " << std::left << std::setw(30) << "cause" << std::right << std::setw(14) << "time" << std::setw(10)
      << "share" << std::setw(8) << "gaps" << "\n";
  for (GapCause c : kCauses) {
    const int64_t ns = run.idle_by_cause.dur_ns_of(c);
    const double share = run.idle_ns > 0 ? static_cast<double>(ns) / static_cast<double>(run.idle_ns) : 0.0;
    out << "  " << std::left << std::setw(30) << CauseLabel(c) << std::right << std::setw(14) << FormatDuration(ns)
        << std::setw(10) << FormatPercent(share) << std::setw(8) << run.idle_by_cause.count[static_cast<size_t>(c)]
        << "\n";
  }

  if (!dev.longest_gaps.empty()) {
    out << "\nLongest idle gaps\n  " << std::left << std::setw(16) << "at (from start)" << std::right << std::setw(12)
        << "length" << "  " << std::left << std::setw(22) << "cause" << "next work\n";
    for (const auto& g : dev.longest_gaps) {
      std::string next = g.next_stream.valid() ? "stream " + std::to_string(g.next_stream.value()) : "-";
      if (g.next_correlation.valid()) next += ", correlation " + std::to_string(g.next_correlation.value());
      if (g.next_from_graph) next += " (graph)";
      out << "  " << std::left << std::setw(16) << FormatDuration(g.start_ns - run.window.start_ns) << std::right
          << std::setw(12) << FormatDuration(g.dur_ns) << "  " << std::left << std::setw(22) << CauseLabel(g.cause)
          << next << "\n";
    }
  }

  out << "\nStreams\n  " << std::left << std::setw(12) << "stream" << std::right << std::setw(14) << "busy"
      << std::setw(10) << "share" << std::setw(10) << "kernels" << "\n";
  for (const auto& s : run.streams) {
    const double share = run.window.dur_ns() > 0 ? double(s.busy_ns) / double(run.window.dur_ns()) : 0.0;
    out << "  " << std::left << std::setw(12) << s.stream.value() << std::right << std::setw(14)
        << FormatDuration(s.busy_ns) << std::setw(10) << FormatPercent(share) << std::setw(10) << s.kernel_count
        << "\n";
  }
}

std::string OpName(const OpGraph* graph, OpId op) {
  if (graph && op.value() >= 0 && static_cast<size_t>(op.value()) < graph->ops.size()) {
    return graph->ops[static_cast<size_t>(op.value())].name;
  }
  return "op " + std::to_string(op.value());
}

void PrintGraph(std::ostream& out, const analysis::GraphReport& g, const OpGraph* graph) {
  out << "\nOp graph\n";
  Row(out, "ops", std::to_string(g.num_ops));
  Row(out, "edges (reduced)", std::to_string(g.num_edges) + " (" + std::to_string(g.reduced_edges) + ")");
  Row(out, "critical path time", FormatDuration(g.critical_path.length_ns));
  Row(out, "critical path / GPU active", g.critical_path_ratio > 0 ? FormatPercent(g.critical_path_ratio) : "-");
  Row(out, "logical concurrency (width)", std::to_string(g.concurrency.width));
  Row(out, "streams of optimal assignment", std::to_string(g.assignment.num_streams));
  Row(out, "synchronizations", std::to_string(g.assignment.syncs.size()));
  out << "  critical path: ";
  const size_t shown = std::min<size_t>(g.critical_path.ops.size(), 8);
  for (size_t i = 0; i < shown; ++i) out << (i ? " -> " : "") << OpName(graph, g.critical_path.ops[i]);
  if (g.critical_path.ops.size() > shown) out << " -> ... (" << g.critical_path.ops.size() << " ops)";
  out << "\n";
}

void PrintPrediction(std::ostream& out, const analysis::PredictionReport& p) {
  out << "\nPrediction (one iteration)\n  " << std::left << std::setw(30) << "mode" << std::right << std::setw(14)
      << "latency" << std::setw(20) << "vs measured" << "\n";
  Row(out, "measured (as recorded)", FormatDuration(p.measured_ns), "1.00x");
  auto vs = [&](int64_t ns) { return ns > 0 ? FormatFactor(double(p.measured_ns) / double(ns)) : "-"; };
  Row(out, "eager, simulated", FormatDuration(p.predicted.eager_ns), vs(p.predicted.eager_ns));
  Row(out, "AoT single stream (predicted)", FormatDuration(p.predicted.aot_single_ns), vs(p.predicted.aot_single_ns));
  Row(out, "AoT multi-stream (predicted)", FormatDuration(p.predicted.aot_multi_ns), vs(p.predicted.aot_multi_ns));
}

}  // namespace

void PrintReport(std::ostream& out, const workflow::RunReport& run_report) {
  const analysis::Report& report = run_report.report;
  const RunInfo& r = run_report.run;
  out << "run " << r.id.value() << " (" << RunModeName(r.mode) << "): " << r.model;
  if (!r.inputs.empty()) out << " --input " << r.inputs;
  if (!r.device.empty()) out << " on " << r.device;
  out << "\n";
  if (!run_report.iteration_range.empty()) {
    const auto* dev = report.primary_device();
    out << "iterations: " << (dev ? dev->iterations.size() : 0) << " windows of NVTX range '"
        << run_report.iteration_range << "'\n";
  }
  if (report.devices.empty()) out << "no GPU activity recorded\n";
  for (const auto& dev : report.devices) PrintTimeline(out, dev);
  if (report.graph) {
    PrintGraph(out, *report.graph, run_report.graph_or_null());
  } else {
    out << "\nNo op graph in this run: critical path, concurrency and stream assignment need one\n"
           "(profile a model with `nimble-prof model.pt`).\n";
  }
  if (report.prediction) PrintPrediction(out, *report.prediction);
}

}  // namespace nimble::cli
