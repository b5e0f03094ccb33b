// The replay costs of an accelerate run's prediction, and its multi-stream predictions anchored on its
// measured single-stream replay (analysis::AnchorToSingleStream), the factor and its text in the result.
// Private to the workflow; pure (no GPU), one thread.
#pragma once

#include "nimble/analysis/dag.h"
#include "nimble/analysis/prediction.h"
#include "nimble/analysis/replay_costs.h"
#include "nimble/core/status.h"
#include "nimble/workflow/accelerate.h"

namespace nimble::workflow {

// The calibration's costs into `options`, with the memset nodes of the captures in `result` (the
// single-stream one's, else the multi-stream one's) unless `isolated_op_times` (ops timed one by one
// include their memsets); result->replay_cost_source says where the costs came from.
void UseReplayCosts(const analysis::ReplayCosts& costs, bool isolated_op_times, analysis::PredictionOptions* options,
                    AccelerateResult* result);

// Reads result->single (captured, median_ms), result->multi (captured, schedule) and result->memory_trials
// (schedules); writes result->multi.predicted_ms and predicted_unanchored_ms, each trial's predicted_ms,
// duration_scale and anchor_text. Without a multi-stream schedule it leaves them as they are. A simulation
// that fails fails the call; a factor that cannot be had leaves the kernels as recorded and says why.
Status PredictMultiStreamAnchored(const analysis::Dag& dag, const analysis::Workload& workload,
                                  const analysis::PredictionOptions& options, AccelerateResult* result);

}  // namespace nimble::workflow
