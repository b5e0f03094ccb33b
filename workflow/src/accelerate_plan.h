// The scheduling half of the accelerate workflow, with no GPU and no libtorch: the workload the
// prediction simulates (kernels from a nimble-prof run database when given), the stream plan
// (analysis::PlanStreams), the precision that picks the sharing model and the prediction itself. Pure
// functions except the database read;
// thread-safe on distinct inputs. Private to the workflow.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "nimble/analysis/dag.h"
#include "nimble/analysis/gpu_sharing.h"
#include "nimble/analysis/prediction.h"
#include "nimble/core/op_graph.h"
#include "nimble/core/schedule.h"
#include "nimble/core/status.h"
#include "nimble/core/tensor_spec.h"
#include "nimble/store/run_reader.h"

namespace nimble::workflow {

struct Plan {
  analysis::Dag dag;
  std::vector<OpEdge> reduced_edges;  // G'
  int32_t matched_edges = 0;
  StreamAssignment multi;             // Algorithm 1, packed and capped by max_streams
  StreamAssignment uncapped;          // Algorithm 1 as it is
  StreamAssignment single;
  int32_t width_streams = 0;          // streams before the cap
  analysis::Workload workload;
  analysis::Prediction prediction;    // after PredictPlan
};

// What the prediction simulates, and where it came from.
struct MeasuredWorkload {
  analysis::Workload workload;
  std::string source;  // for the table: "kernels of run 3 in run.db (iteration 12 of 20)"
};

// The kernels of one iteration (the one of median length) of the newest run in `db` that recorded
// kernels for a graph with the same ops (count and kinds) as `graph`: each op's kernels with their
// measured durations and GPU shares from their launch configurations. Only runs recorded with TF32
// convolutions allowed as `tf32` says are used (nimble-prof records TF32 convolutions unless given
// --no-tf32; a run that does not say counts as either; nullopt: any), and with the convolutions in
// channels_last as `channels_last` says (a run that does not say was recorded contiguous; nullopt: any).
// NotFound when no run matches.
StatusOr<MeasuredWorkload> WorkloadFromDatabase(const store::RunReader& db, const OpGraph& graph,
                                                std::optional<bool> tf32,
                                                std::optional<bool> channels_last = std::nullopt);

// Without a recording: one kernel per op of graph.ops[i].gpu_time_ns (timed in isolation), its GPU share
// estimated from its output size.
analysis::Workload WorkloadFromOpTimes(const OpGraph& graph, int64_t device_threads);

// Fraction of the GPU an op occupies when nothing else is known: one thread per output element of its
// (first) output, over all resident threads of the device, in [0.05, 1].
double EstimatedShare(const std::string& output_shapes, int64_t device_threads);

// The assignment, holding `workload` (one entry per op of `graph`) for the prediction. The multi-stream
// schedule is Algorithm 1's, packed (analysis::PackStreams: streams that never overlap share one) unless
// `pack_streams` is false, and capped at `max_streams` (0: no cap).
StatusOr<Plan> MakePlan(const OpGraph& graph, analysis::Workload workload, int32_t max_streams,
                        bool pack_streams = true);

// What the model computes in, for the device's sharing model (analysis::Precision): half where most of
// its floating-point weights (elements) are float16 or bfloat16; float32 where most are float32, unless
// `tf32_convolutions` (--tf32 on a model with convolutions: cuDNN runs them on tensor cores; never
// calibrated: unknown). A model without floating-point weights, or one whose weights are not known (0
// and 0), by its inputs: any float16 or bfloat16 one, half; else any float32 one, float32 (TF32 as
// above); else unknown.
analysis::Precision ModelPrecision(int64_t float32_weights, int64_t half_weights, const std::vector<TensorSpec>& inputs,
                                   bool tf32_convolutions);

// Whether an op of `graph` is a convolution (or one with its epilogue in one kernel): what the layout and
// --tf32 change.
bool HasConvolution(const OpGraph& graph);

// Fills plan->prediction: the workload simulated eagerly, as one-stream replay and as the assignment's
// replay, with `options`' launch and replay costs.
Status PredictPlan(Plan* plan, const analysis::PredictionOptions& options);

// The memory budget's search over stream counts. `streams_for(n)` is how many streams the schedule
// folded onto at most n has (cheap: the packing alone); `fits(n)` captures that schedule and says
// whether it fits the budget. The first trial is `start` streams as they are; then the count is halved
// until a schedule fits, and bisected between that fit and the fewest streams found over the budget
// (memory grows with the streams), skipping counts the packing does not reach. Returns the most streams
// found to fit (0: none; a packing down to one stream ends the search).
StatusOr<int32_t> SearchStreamCounts(int32_t start, const std::function<int32_t(int32_t)>& streams_for,
                                     const std::function<StatusOr<bool>(int32_t)>& fits);

}  // namespace nimble::workflow
