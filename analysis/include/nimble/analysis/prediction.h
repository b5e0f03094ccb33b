// Prediction of what removing scheduling overhead and serial execution is worth: one iteration's
// per-op kernels (durations measured, GPU shares from occupancy.h) simulated three ways - eager single
// stream (host launches every kernel, at the measured launch gap), ahead-of-time single stream (CUDA graph
// replay) and ahead-of-time multi-stream (graph replay of the stream assignment). Pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "nimble/analysis/dag.h"
#include "nimble/analysis/gpu_sharing.h"
#include "nimble/analysis/op_weights.h"
#include "nimble/analysis/simulator.h"
#include "nimble/analysis/timeline.h"
#include "nimble/core/op_graph.h"
#include "nimble/core/schedule.h"
#include "nimble/core/trace.h"

namespace nimble::analysis {

// Launch costs not measured by a trace of eager execution; estimates, to be calibrated with measured runs.
struct PredictionOptions {
  int64_t eager_launch_gap_ns = 0;        // host time per kernel in eager mode; 0: measure from the trace
  int64_t fallback_launch_gap_ns = 5000;  // used when it cannot be measured (fewer than two launch calls)
  int64_t graph_launch_ns = 5000;         // one graph launch call on the host
  int64_t graph_node_latency_ns = 1000;   // GPU-side gap between dependent nodes of a replayed graph
  int64_t event_host_ns = 2000;           // eager: host time of one event record or stream wait
  int64_t sync_latency_ns = 1000;         // a cross-stream dependency's extra delay
  // Replayed nodes that no op's kernels account for, in all: a capture's memset nodes and the kernels
  // that replace them (a recording attributes only kernels to ops; ops timed one by one include their
  // memsets, and then this stays 0). Added to every replay, once.
  int64_t graph_extra_nodes_ns = 0;
  SharingModel sharing;                   // how kernels on several streams share the GPU (gpu_sharing.h)
};

// One iteration's GPU work per op.
struct Workload {
  std::vector<std::vector<SimKernel>> op_kernels;  // per op, in start order
  int64_t launch_gap_ns = 0;  // mean host time between consecutive launch calls; 0 when not measurable
};

// Kernels attributed to each of `num_ops` ops whose start lies in `window` (all when absent), as
// WeighOps selects them. Shares come from `device` (null: share 1, see occupancy.h). Fails on an
// attribution naming a missing op or kernel.
StatusOr<Workload> BuildWorkload(const Trace& trace, int32_t num_ops, std::span<const KernelAttribution> attribution,
                                 const DeviceInfo* device, std::optional<TimeWindow> window);

// The same from kernels already weighed (WeighOps over KernelSpans(trace)).
Workload WorkloadOf(const Trace& trace, const OpKernels& weighed, const DeviceInfo* device);

// Without kernel records: one kernel per op of its gpu_time_ns, filling the GPU.
Workload WorkloadFromOpTimes(const OpGraph& graph);

// Launch costs of each mode.
LaunchCosts EagerCosts(const Workload& workload, const PredictionOptions& options);
LaunchCosts GraphReplayCosts(const PredictionOptions& options);

struct Prediction {
  int64_t eager_ns = 0;       // single stream, launched by the host kernel by kernel
  int64_t aot_single_ns = 0;  // single stream, graph replay
  int64_t aot_multi_ns = 0;   // stream assignment, graph replay
  int64_t launch_gap_ns = 0;  // the eager launch gap used
};

// `multi_stream` is the assignment to predict (normally AssignStreams of `dag`). Its kernels' shares go
// through `options.sharing`; the single-stream modes never overlap kernels, so it does not touch them.
StatusOr<Prediction> Predict(const Dag& dag, const Workload& workload, const StreamAssignment& multi_stream,
                             const PredictionOptions& options = {});

// The multi-stream replay alone (Predict's aot_multi_ns), for a search over many schedules or models.
StatusOr<int64_t> PredictMultiStream(const Dag& dag, const Workload& workload, const StreamAssignment& multi_stream,
                                     const PredictionOptions& options);

// A workload's kernel durations scaled by one factor so that its simulated single-stream replay, under
// `options`' replay costs, takes `measured_single_ns`: the collector's durations corrected for one model
// by a measured replay of that model, before its multi-stream replay is predicted from them. Kernels
// recorded under the collector run longer or shorter than in an untraced replay by an amount that varies
// by model (bench/results/concurrency.md, "Anchored on the single-stream replay"); the single-stream
// replay shows it, on one stream, where sharing plays no part.
struct AnchoredWorkload {
  Workload workload;
  double scale = 1;  // every kernel's duration multiplied by this
};

// The factor allowed: a measured replay further off than this from the durations says the recording and
// the replay ran different work, not that tracing changed their speed.
inline constexpr double kMinAnchorScale = 0.5;
inline constexpr double kMaxAnchorScale = 2.0;

// FailedPrecondition (saying why) without kernel time, when the measurement leaves no time for the
// kernels after the replay costs, or when the factor falls outside [kMinAnchorScale, kMaxAnchorScale];
// InvalidArgument for a measurement <= 0.
StatusOr<AnchoredWorkload> AnchorToSingleStream(const Dag& dag, const Workload& workload,
                                                const PredictionOptions& options, int64_t measured_single_ns);

}  // namespace nimble::analysis
