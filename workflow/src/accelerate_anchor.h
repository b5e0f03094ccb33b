// The multi-stream predictions of an accelerate run, anchored on its measured single-stream replay
// (analysis::AnchorToSingleStream): the captured multi-stream schedule's and each memory trial's, the
// captured one's also from the kernels as recorded, and the factor and its text in the result. Private
// to the workflow; pure (no GPU), one thread.
#pragma once

#include "nimble/analysis/dag.h"
#include "nimble/analysis/prediction.h"
#include "nimble/core/status.h"
#include "nimble/workflow/accelerate.h"

namespace nimble::workflow {

// Reads result->single (captured, median_ms), result->multi (captured, schedule) and result->memory_trials
// (schedules); writes result->multi.predicted_ms and predicted_unanchored_ms, each trial's predicted_ms,
// duration_scale and anchor_text. Without a multi-stream schedule it leaves them as they are. A simulation
// that fails fails the call; a factor that cannot be had leaves the kernels as recorded and says why.
Status PredictMultiStreamAnchored(const analysis::Dag& dag, const analysis::Workload& workload,
                                  const analysis::PredictionOptions& options, AccelerateResult* result);

}  // namespace nimble::workflow
