// Everything the viewer shows of one run, as loaded: its row in the runs table, the timeline, idle time
// per device with the longest gaps, the op analysis when the run has a graph, the stored speedups and
// data-quality counts, the samples a run diff compares (compare mode), and the run's open database.
// Built on a loading thread, then shared read-only (std::shared_ptr<const>); `records` may then be
// called from any thread (run_records.h).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nimble/analysis/idle_gaps.h"
#include "nimble/analysis/trace_critical_path.h"
#include "nimble/analysis/run_samples.h"
#include "nimble/core/run.h"
#include "nimble/gui/busy_profile.h"
#include "nimble/gui/op_analysis.h"
#include "nimble/gui/run_records.h"
#include "nimble/gui/run_timeline.h"

namespace nimble::gui {

// The critical path through host and GPU that the tables list (host_gpu_path.h), for runs without op
// analysis.
struct HostGpuPathView {
  DeviceId device;                   // the first device with GPU activity
  int32_t iteration = -1;            // the path's window: index into timeline.iterations; -1: the device's span
  analysis::TraceCriticalPath path;  // times relative to the timeline's base
};

struct DeviceIdleSummary {
  DeviceId device;
  int64_t span_start_ns = 0;  // relative to the timeline's base
  int64_t span_end_ns = 0;
  int64_t active_ns = 0;
  analysis::GapTotals totals;
  std::vector<analysis::IdleGap> longest;  // longest first; start_ns relative
  BusyProfile busy;                         // over the device's idle lane
};

// Wall time of each loading stage, for the progress display and the benchmark.
struct LoadTimings {
  double open_ms = 0;
  double host_tables_ms = 0;
  double kernels_ms = 0;
  double lanes_ms = 0;
  double gaps_ms = 0;
  double ops_ms = 0;
  double total_ms = 0;
};

struct LoadedRun {
  std::string path;
  RunInfo info;
  RunTimeline timeline;
  std::vector<DeviceIdleSummary> devices;  // ascending device id
  std::optional<OpAnalysis> ops;           // with an op graph that analysed cleanly
  std::string graph_problem;               // why a stored graph has no analysis ("" when fine)
  std::optional<HostGpuPathView> host_gpu_path;  // without op analysis: the path through host and GPU
  std::string host_gpu_path_problem;       // why such a run has none ("" when it has one or needs none)
  std::vector<Speedup> speedups;
  std::vector<Metric> metrics;  // stored whole-run metrics (nimble-accelerate's memory per mode among them)
  std::vector<StatEntry> stats;
  // Compare mode: the run's figures per iteration for the Diff tab (analysis::SampleRun), or why not.
  std::optional<analysis::RunSamples> diff_samples;
  std::string diff_problem;
  LoadTimings timings;
  std::shared_ptr<const RunRecords> records;  // the reader that loaded the run, still open

  // "resnet50.pt · eager · run 1" (file name of the model, mode, id).
  std::string Label() const;
  // Relative time the views align runs at: the first iteration's start, else the first activity.
  int64_t AlignNs() const;
};

}  // namespace nimble::gui
