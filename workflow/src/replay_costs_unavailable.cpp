// Replay-cost calibration in a build without the collector: the prediction keeps its estimates.
#include "nimble/workflow/replay_costs.h"

namespace nimble::workflow {

StatusOr<analysis::ReplayCosts> MeasureReplayCosts(const std::string&) {
  return Unimplemented("built without the collector (CUDA and CUPTI)");
}

}  // namespace nimble::workflow
