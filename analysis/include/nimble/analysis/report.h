// Everything `nimble-prof report` shows, from one call: per-device timeline metrics (run and iterations),
// idle gaps by cause and, given the op graph, critical path, concurrency, stream assignment and prediction.
// Pure functions; the inputs are only read.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "nimble/analysis/concurrency.h"
#include "nimble/analysis/critical_path.h"
#include "nimble/analysis/prediction.h"
#include "nimble/analysis/timeline.h"
#include "nimble/analysis/trace_critical_path.h"
#include "nimble/analysis/transitive_reduction.h"
#include "nimble/core/run.h"
#include "nimble/core/schedule.h"
#include "nimble/core/trace.h"

namespace nimble::analysis {

struct ReportOptions {
  std::string iteration_range;  // NVTX range text that marks one iteration; empty: no iteration windows
  size_t top_gaps = 10;         // longest gaps listed per device
  ReductionOptions reduction;
  PredictionOptions prediction;
};

struct ReportInput {
  const Trace* trace = nullptr;                    // required
  const OpGraph* graph = nullptr;                  // optional
  std::span<const KernelAttribution> attribution;  // optional: which op launched which kernel
  const DeviceInfo* device = nullptr;              // optional: SM limits; default: the trace's record of it
};

struct DeviceReport {
  TimelineMetrics run;                      // first activity to last
  std::vector<TimelineMetrics> iterations;  // one per iteration window, in time order
  std::vector<IdleGap> longest_gaps;        // over the whole run, longest first
  // The critical path through host and GPU (trace_critical_path.h) of run.window and of each iteration
  // window: every run has one, with an op graph or without.
  TraceCriticalPath run_path;
  std::vector<TraceCriticalPath> iteration_paths;  // parallel to iterations
};

// The iteration whose span is the median (core/median.h's rule): the representative window the
// reports show beside the whole run. nullopt without iterations.
std::optional<size_t> MedianIteration(const DeviceReport& device);

struct GraphReport {
  int32_t num_ops = 0;
  int64_t num_edges = 0;
  int64_t reduced_edges = 0;        // |E'|
  int32_t matched_edges = 0;        // |M|
  DeviceId device;                  // where its kernels ran
  std::vector<int64_t> op_time_ns;  // the weights used: one iteration's GPU time per op
  CriticalPath critical_path;
  double critical_path_ratio = 0;   // critical path / GPU active time of that iteration (0 if unknown)
  Concurrency concurrency;
  StreamAssignment assignment;      // syncs.size() == reduced_edges - matched_edges
};

struct PredictionReport {
  int64_t measured_ns = 0;          // median iteration window, or the run's span without windows
  Prediction predicted;
  double speedup_aot_single = 0;    // measured / predicted
  double speedup_aot_multi = 0;
};

struct Report {
  std::vector<DeviceReport> devices;  // ascending device id
  std::optional<GraphReport> graph;
  std::optional<PredictionReport> prediction;
  // The device the metrics describe: the graph's, else the first.
  const DeviceReport* primary_device() const;
};

// Without an op graph (a plain CUDA program) only the timeline part is filled: kernel order on a stream
// says nothing about which kernels depend on which, so no graph is guessed. With a graph, one iteration
// (the last window, else the whole run) weighs the ops; without attribution, Op::gpu_time_ns does.
StatusOr<Report> BuildReport(const ReportInput& input, const ReportOptions& options = {});

// Figures for the store: the primary device's run (window -1) and iterations (window i), each with its
// host/GPU critical path ("host_gpu_critical_path_ns" and its "_host_ns", "_gpu_ns", "_wait_ns" split),
// the graph figures and the predictions. Names carry their unit ("gpu_active_ns", "active_ratio").
std::vector<Metric> ReportMetrics(const Report& report);
// "eager" (measured against its prediction), "aot-single" and "aot-multi" (predicted), all relative to
// the measured eager latency. Empty without a prediction.
std::vector<Speedup> ReportSpeedups(const Report& report);

}  // namespace nimble::analysis
