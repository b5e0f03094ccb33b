// nimble-accelerate's calibration of the prediction: the replay costs of this device, recorded with the
// in-process collector while small calibration graphs replay (accelerate/replay_calibration.h,
// analysis/replay_costs.h), except the launch latency, which is timed with the collector off
// (ReplayCalibration::LaunchLatency). Without the collector in the build: Unimplemented,
// and the prediction keeps its estimates.
#pragma once

#include <string>

#include "nimble/analysis/replay_costs.h"
#include "nimble/core/status.h"

namespace nimble::cli {

StatusOr<analysis::ReplayCosts> MeasureReplayCostsOnDevice(const std::string& device);

}  // namespace nimble::cli
