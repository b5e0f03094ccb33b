// Recording replays in a build without the collector: nimble-accelerate stores results only.
#include "replay_recording.h"

namespace nimble::workflow {

StatusOr<ReplayRecording> RecordReplays(accelerate::AotGraph&, RunMode, int32_t) {
  return Unimplemented("built without the collector (CUDA and CUPTI)");
}

}  // namespace nimble::workflow
