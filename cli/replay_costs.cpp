#include "replay_costs.h"

#if NIMBLE_REPLAY_CALIBRATION
#include "nimble/accelerate/replay_calibration.h"
#include "nimble/collector/in_process_session.h"
#endif

namespace nimble::cli {

#if NIMBLE_REPLAY_CALIBRATION

StatusOr<analysis::ReplayCosts> MeasureReplayCostsOnDevice(const std::string& device) {
  constexpr int32_t kReplays = 20;
  NIMBLE_ASSIGN_OR_RETURN(auto calibration, ReplayCalibration::Create(device));
  NIMBLE_RETURN_IF_ERROR(calibration->Replay(2));  // first launches upload the graphs: not recorded
  NIMBLE_ASSIGN_OR_RETURN(auto session, collector::InProcessSession::Start());
  const Status replayed = calibration->Replay(kReplays);
  NIMBLE_ASSIGN_OR_RETURN(collector::InProcessRecording recording, session->Stop());
  NIMBLE_RETURN_IF_ERROR(replayed);
  return analysis::MeasureReplayCosts(recording.trace);
}

#else

StatusOr<analysis::ReplayCosts> MeasureReplayCostsOnDevice(const std::string&) {
  return Unimplemented("built without the collector (CUDA and CUPTI)");
}

#endif

}  // namespace nimble::cli
