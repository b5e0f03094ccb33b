#include "nimble/gui/run_overview.h"

#include <cstdio>
#include <optional>
#include <utility>

#include "nimble/gui/iteration_detector.h"
#include "nimble/gui/palette.h"
#include "nimble/gui/ruler_ticks.h"
#include "nimble/gui/run_terms.h"
#include "nimble/gui/stat_labels.h"

namespace nimble::gui {
namespace {

std::string Dur(int64_t ns) { return FormatDuration(static_cast<double>(ns)); }

std::string Percent(double part, double whole) {
  if (whole <= 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f%%", 100.0 * part / whole);
  return buf;
}

OverviewSection RunSection(const LoadedRun& run) {
  OverviewSection s{"Run", {}};
  const RunInfo& info = run.info;
  s.lines.push_back({SubjectLabel(info.mode), info.model.empty() ? "-" : info.model, "", false});
  if (!info.inputs.empty()) s.lines.push_back({"Inputs", info.inputs, "", false});
  s.lines.push_back({"Mode", std::string(RunModeName(info.mode)), "", false});
  s.lines.push_back({"Device", info.device.empty() ? "-" : info.device, "", false});
  s.lines.push_back({"Kernels", FormatStatValue(run.timeline.kernel_count, StatUnit::kCount), "", false});
  const auto& windows = run.timeline.iterations;
  if (!windows.empty()) {
    const int typical = MedianIteration(windows);
    const auto [start, end] = windows[static_cast<size_t>(typical)];
    s.lines.push_back({"Iterations", std::to_string(windows.size()),
                       "windows of the NVTX range \"" + run.timeline.iteration_text + "\"", false});
    s.lines.push_back({"Median iteration", std::to_string(typical + 1) + ", " + Dur(end - start),
                       "a typical one: where the timeline opens when it shows this run alone", false});
  } else {
    s.lines.push_back({"Iterations", "none found", "no NVTX range repeats without overlapping itself", false});
  }
  return s;
}

OverviewSection GpuSection(const LoadedRun& run) {
  OverviewSection s{"GPU time", {}};
  for (const DeviceIdleSummary& d : run.devices) {
    const std::string gpu = "GPU " + std::to_string(d.device.value());
    const auto span = static_cast<double>(d.span_end_ns - d.span_start_ns);
    s.lines.push_back({gpu + " active", Dur(d.active_ns) + " of " + Dur(d.span_end_ns - d.span_start_ns),
                       Percent(static_cast<double>(d.active_ns), span) + " of its first to last activity", false});
    for (size_t c = 0; c < analysis::kNumGapCauses; ++c) {
      if (d.totals.count[c] == 0) continue;
      const auto cause = static_cast<analysis::GapCause>(c);
      s.lines.push_back({gpu + " idle, " + std::string(GapCauseLabel(cause)), Dur(d.totals.dur_ns[c]),
                         FormatStatValue(d.totals.count[c], StatUnit::kCount) + " gaps", false});
    }
  }
  if (s.lines.empty()) s.lines.push_back({"GPU activity", "none recorded", "", false});
  return s;
}

OverviewSection GraphSection(const LoadedRun& run) {
  OverviewSection s{"Op graph", {}};
  if (!run.ops) {
    const bool problem = !run.graph_problem.empty();
    s.lines.push_back({"Op graph", problem ? "not analysed" : "none stored",
                       problem ? run.graph_problem : "nimble-prof model.pt records one", problem});
    return s;
  }
  const OpAnalysis& ops = *run.ops;
  s.lines.push_back({"Ops", FormatStatValue(static_cast<int64_t>(ops.ops.size()), StatUnit::kCount), "", false});
  s.lines.push_back({"Critical path", Dur(ops.critical_path_ns),
                     std::to_string(ops.critical_path.size()) + " ops, by their GPU time in one iteration", false});
  s.lines.push_back({"Stream plan", std::to_string(ops.assigned_streams) + " streams, " +
                                        std::to_string(ops.assignment_syncs) + " syncs",
                     ops.assignment_stored ? "as stored in the file by nimble-prof report or nimble-accelerate"
                                           : "computed on loading",
                     false});
  return s;
}

// Without op analysis: the critical path through host and GPU of the listed window, and its split.
std::optional<OverviewSection> HostGpuPathSection(const LoadedRun& run) {
  if (run.ops || (!run.host_gpu_path && run.host_gpu_path_problem.empty())) return std::nullopt;
  OverviewSection s{"Critical path (host and GPU)", {}};
  if (!run.host_gpu_path) {
    s.lines.push_back({"Critical path", "not computed", run.host_gpu_path_problem + "; nimble-prof report has it", false});
    return s;
  }
  const HostGpuPathView& v = *run.host_gpu_path;
  const analysis::TraceCriticalPath& p = v.path;
  const std::string window = v.iteration >= 0 ? "median iteration (" + std::to_string(v.iteration + 1) + ")" : "whole run";
  const auto length = static_cast<double>(p.length_ns);
  s.lines.push_back({"Length", Dur(p.length_ns), "GPU " + std::to_string(v.device.value()) + ", " + window + ", " +
                                                     std::to_string(p.segments.size()) + " segments", false});
  s.lines.push_back({"Host", Dur(p.host_ns), Percent(static_cast<double>(p.host_ns), length) +
                                                 ": API calls and the CPU time between them", false});
  s.lines.push_back({"GPU", Dur(p.gpu_ns), Percent(static_cast<double>(p.gpu_ns), length) +
                                               ": kernels, copies and sets", false});
  s.lines.push_back({"Waiting", Dur(p.wait_ns), Percent(static_cast<double>(p.wait_ns), length) +
                                                    ": launch latency, stream queues, event waits, sync wake-ups", false});
  return s;
}

}  // namespace

std::vector<OverviewSection> DescribeRun(const LoadedRun& run) {
  std::vector<OverviewSection> out = {RunSection(run), GpuSection(run), GraphSection(run)};
  if (auto path = HostGpuPathSection(run)) out.push_back(std::move(*path));
  OverviewSection problems{"Data problems", {}};
  OverviewSection recording{"Recording", {}};
  for (const StatEntry& stat : run.stats) {
    const StatLabel label = LabelStat(stat.name);
    const bool problem = IsDataProblem(stat);
    OverviewLine line{label.label, FormatStatValue(stat.value, label.unit), stat.description, problem};
    if (problem) line.label = std::string(LevelName(LevelOf(stat))) + ": " + line.label;
    (problem ? problems : recording).lines.push_back(std::move(line));
  }
  if (problems.lines.empty()) problems.lines.push_back({"Problems", "none", "no dropped, lost or unmatched records", false});
  out.push_back(std::move(problems));
  if (!recording.lines.empty()) out.push_back(std::move(recording));
  return out;
}

}  // namespace nimble::gui
