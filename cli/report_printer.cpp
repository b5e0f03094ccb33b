#include "report_printer.h"

#include <algorithm>
#include <iomanip>
#include <optional>
#include <string>
#include <vector>

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

using analysis::PathSegment;
using analysis::PathStep;
using analysis::TraceCriticalPath;

// The longest segments of a path listed in the report.
constexpr size_t kPathSegmentsShown = 5;
constexpr size_t kMaxNameChars = 60;

// "SpinKernel (stream 13)", "cudaStreamSynchronize (thread 2002)"; waits name the work they precede.
std::string SegmentWhat(const TraceCriticalPath& path, const PathSegment& s) {
  std::string name = path.NameOf(s);
  if (name.size() > kMaxNameChars) name = name.substr(0, kMaxNameChars - 3) + "...";
  if (name.empty()) name = std::string(analysis::TraceRecordKindName(s.record.kind)) + " " + std::to_string(s.record.index);
  const bool before = s.step == PathStep::kLaunchLatency || s.step == PathStep::kStreamQueue || s.step == PathStep::kEventWait;
  const std::string where = s.stream.valid() ? "stream " + std::to_string(s.stream.value())
                                             : "thread " + std::to_string(s.thread.value());
  return (before ? "before " : "") + name + " (" + where + ")";
}

void PrintHostGpuPath(std::ostream& out, const analysis::DeviceReport& dev) {
  const std::optional<size_t> median = analysis::MedianIteration(dev);
  const TraceCriticalPath* it =
      median && *median < dev.iteration_paths.size() ? &dev.iteration_paths[*median] : nullptr;
  const TraceCriticalPath& run = dev.run_path;
  out << "\nCritical path (host and GPU), device " << dev.run.device.value() << "\n";
  auto row = [&](const std::string& label, auto get) {
    out << "  " << std::left << std::setw(24) << label << std::right << std::setw(20) << get(run);
    if (it) out << std::setw(24) << get(*it);
    out << "\n";
  };
  auto part = [](int64_t ns, const TraceCriticalPath& p) {
    const double share = p.length_ns > 0 ? static_cast<double>(ns) / static_cast<double>(p.length_ns) : 0.0;
    return FormatDuration(ns) + " (" + FormatPercent(share) + ")";
  };
  out << "  " << std::setw(24) << "" << std::right << std::setw(20) << "whole run";
  if (it) out << std::setw(24) << "median iteration";
  out << "\n";
  row("length", [](const TraceCriticalPath& p) { return FormatDuration(p.length_ns); });
  row("host (API calls, CPU)", [&](const TraceCriticalPath& p) { return part(p.host_ns, p); });
  row("GPU (kernels, copies)", [&](const TraceCriticalPath& p) { return part(p.gpu_ns, p); });
  row("waiting", [&](const TraceCriticalPath& p) { return part(p.wait_ns, p); });
  const TraceCriticalPath& shown = it ? *it : run;
  if (shown.empty()) return;
  std::vector<const PathSegment*> longest;
  for (const PathSegment& s : shown.segments) longest.push_back(&s);
  const size_t n = std::min(longest.size(), kPathSegmentsShown);
  std::partial_sort(longest.begin(), longest.begin() + static_cast<std::ptrdiff_t>(n), longest.end(),
                    [](const PathSegment* a, const PathSegment* b) {
                      return a->dur_ns() != b->dur_ns() ? a->dur_ns() > b->dur_ns() : a->start_ns < b->start_ns;
                    });
  out << "  longest segments (" << (it ? "median iteration" : "whole run") << ", " << shown.segments.size()
      << " in all)\n";
  for (size_t i = 0; i < n; ++i) {
    const PathSegment& s = *longest[i];
    out << "  " << std::right << std::setw(12) << FormatDuration(s.dur_ns()) << "  " << std::left << std::setw(6)
        << analysis::PathSegmentKindName(s.kind()) << std::setw(17) << analysis::PathStepLabel(s.step) << SegmentWhat(shown, s)
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

// A result run's stored figures (nimble-accelerate's per mode): latencies, then memory.
void PrintStoredMetrics(std::ostream& out, const std::vector<Metric>& metrics) {
  if (metrics.empty()) return;
  auto find = [&](const char* name) -> std::optional<double> {
    for (const Metric& m : metrics) {
      if (m.name == name) return m.value;
    }
    return std::nullopt;
  };
  auto ns = [&](const char* name) {
    const auto v = find(name);
    return v ? FormatDuration(static_cast<int64_t>(*v)) : std::string("-");
  };
  auto mib = [&](const char* name) {
    const auto v = find(name);
    return v ? workflow::FormatMiB(static_cast<int64_t>(*v)) + " MiB" : std::string("-");
  };
  out << "\nStored results\n";
  Row(out, "latency (median of replays)", ns("latency_median_ns"), "predicted " + ns("predicted_latency_ns"));
  Row(out, "baseline latency", ns("baseline_latency_ns"));
  if (const auto streams = find("stream_count")) {
    Row(out, "streams, syncs", std::to_string(static_cast<int64_t>(*streams)) + ", " +
                                   std::to_string(static_cast<int64_t>(find("sync_count").value_or(0))));
  }
  if (find("peak_memory_bytes")) {
    Row(out, "GPU memory, peak reserved", mib("peak_memory_bytes"), "allocated " + mib("peak_allocated_bytes"));
    Row(out, "graph pool held", mib("graph_pool_bytes"));
    Row(out, "baseline forward, peak reserved", mib("baseline_peak_memory_bytes"),
        "allocated " + mib("baseline_peak_allocated_bytes"));
    out << "  (memory above the weights and inputs)\n";
  }
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
  PrintStoredMetrics(out, run_report.stored_metrics);
  for (const auto& dev : report.devices) {
    PrintTimeline(out, dev);
    PrintHostGpuPath(out, dev);
  }
  if (report.graph) {
    PrintGraph(out, *report.graph, run_report.graph_or_null());
  } else {
    out << "\nNo op graph in this run: the op graph's critical path, concurrency and stream assignment need one\n"
           "(profile a model with `nimble-prof model.pt`).\n";
  }
  if (report.prediction) PrintPrediction(out, *report.prediction);
}

}  // namespace nimble::cli
