// The replay-cost calibration behind the accelerate workflow's prediction: this device's costs of a
// graph launch, of each graph node and of a cross-stream dependency, recorded with the in-process
// collector while small calibration graphs replay (accelerate/replay_calibration.h,
// analysis/replay_costs.h), except the launch latency and the memset nodes' costs, which are timed with
// the collector off.
// In a build without the collector (CUDA and CUPTI): Unimplemented, and the prediction keeps its
// estimates. One call at a time per process (it owns CUPTI while it runs).
#pragma once

#include <string>

#include "nimble/analysis/replay_costs.h"
#include "nimble/core/status.h"

namespace nimble::workflow {

StatusOr<analysis::ReplayCosts> MeasureReplayCosts(const std::string& device);

}  // namespace nimble::workflow
