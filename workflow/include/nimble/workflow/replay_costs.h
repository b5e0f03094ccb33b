// This device's replay costs for the accelerate workflow's prediction (accelerate/replay_calibration.h):
// node gaps recorded with the in-process collector, the launch and the memset nodes timed without it.
// Without the collector (CUDA and CUPTI): Unimplemented, and the prediction keeps its estimates. One
// call at a time per process (it owns CUPTI while it runs).
#pragma once

#include <string>

#include "nimble/analysis/replay_costs.h"
#include "nimble/core/status.h"

namespace nimble::workflow {

StatusOr<analysis::ReplayCosts> MeasureReplayCosts(const std::string& device);

}  // namespace nimble::workflow
