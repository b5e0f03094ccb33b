#include "nimble/workflow/replay_costs.h"

#include "nimble/accelerate/replay_calibration.h"
#include "nimble/collector/in_process_session.h"

namespace nimble::workflow {

StatusOr<analysis::ReplayCosts> MeasureReplayCosts(const std::string& device) {
  constexpr int32_t kReplays = 20;
  NIMBLE_ASSIGN_OR_RETURN(auto calibration, accelerate::ReplayCalibration::Create(device));
  NIMBLE_RETURN_IF_ERROR(calibration->Replay(2));  // first launches upload the graphs: not recorded
  // The launch latency as a model's timed replays see it, without the collector's callbacks (which
  // made recorded launches 41-74 us on an H100, 2026-11-21).
  NIMBLE_ASSIGN_OR_RETURN(const int64_t launch_ns, calibration->LaunchLatency(kReplays));
  // A failure here leaves the memset costs unmeasured (0) rather than the whole calibration.
  const StatusOr<accelerate::ReplayCalibration::NodeCosts> nodes = calibration->MemsetNodeCosts(kReplays);
  NIMBLE_ASSIGN_OR_RETURN(auto session, collector::InProcessSession::Start());
  const Status replayed = calibration->Replay(kReplays);
  NIMBLE_ASSIGN_OR_RETURN(collector::InProcessRecording recording, session->Stop());
  NIMBLE_RETURN_IF_ERROR(replayed);
  NIMBLE_ASSIGN_OR_RETURN(analysis::ReplayCosts costs, analysis::MeasureReplayCosts(recording.trace));
  costs.launch_ns = launch_ns;
  if (nodes.ok()) {
    costs.memset_node_ns = nodes->memset_ns;
    costs.fill_node_ns = nodes->fill_ns;
  } else {
    costs.memset_costs_error = nodes.status().message();
  }
  return costs;
}

}  // namespace nimble::workflow
