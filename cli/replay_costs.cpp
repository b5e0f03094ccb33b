#include "replay_costs.h"

#if NIMBLE_REPLAY_CALIBRATION
#include <algorithm>
#include <vector>

#include "nimble/accelerate/replay_calibration.h"
#include "nimble/core/median.h"
#include "nimble/collector/in_process_session.h"
#endif

namespace nimble::cli {

#if NIMBLE_REPLAY_CALIBRATION

StatusOr<analysis::ReplayCosts> MeasureReplayCostsOnDevice(const std::string& device) {
  constexpr int32_t kReplays = 20;
  NIMBLE_ASSIGN_OR_RETURN(auto calibration, ReplayCalibration::Create(device));
  NIMBLE_RETURN_IF_ERROR(calibration->Replay(2));  // first launches upload the graphs: not recorded
  // The launch latency as a model's timed replays see it, without the collector's callbacks: the
  // event-timed chain less the span of its kernels in the recording.
  NIMBLE_ASSIGN_OR_RETURN(std::vector<int64_t> timed, calibration->TimeChain(kReplays));
  NIMBLE_ASSIGN_OR_RETURN(auto session, collector::InProcessSession::Start());
  const Status replayed = calibration->Replay(kReplays);
  NIMBLE_ASSIGN_OR_RETURN(collector::InProcessRecording recording, session->Stop());
  NIMBLE_RETURN_IF_ERROR(replayed);
  NIMBLE_ASSIGN_OR_RETURN(analysis::ReplayCosts costs, analysis::MeasureReplayCosts(recording.trace));
  if (costs.one_stream_span_ns > 0) costs.launch_ns = std::max<int64_t>(0, Median(timed) - costs.one_stream_span_ns);
  return costs;
}

#else

StatusOr<analysis::ReplayCosts> MeasureReplayCostsOnDevice(const std::string&) {
  return Unimplemented("built without the collector (CUDA and CUPTI)");
}

#endif

}  // namespace nimble::cli
