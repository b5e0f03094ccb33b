#include "replay_recording.h"

#include <unistd.h>

#include "nimble/analysis/time_window.h"
#include "nimble/collector/in_process_session.h"
#include "nimble/workflow/profile_model.h"

namespace nimble::workflow {

StatusOr<ReplayRecording> RecordReplays(accelerate::AotGraph& graph, RunMode mode, int32_t iterations) {
  NIMBLE_ASSIGN_OR_RETURN(auto session, collector::InProcessSession::Start());
  std::vector<analysis::TimeWindow> windows;
  Status replayed;
  for (int32_t i = 0; i < iterations && replayed.ok(); ++i) {
    StatusOr<int64_t> start = session->NowNs();
    replayed = start.ok() ? graph.Replay() : start.status();
    StatusOr<int64_t> end = session->NowNs();
    if (replayed.ok() && !end.ok()) replayed = end.status();
    if (replayed.ok()) windows.push_back(analysis::TimeWindow{*start, *end});
  }
  NIMBLE_ASSIGN_OR_RETURN(collector::InProcessRecording recording, session->Stop());
  NIMBLE_RETURN_IF_ERROR(replayed);
  ReplayRecording out{mode, std::move(recording.trace), std::move(recording.stats), iterations};
  const StringId name = out.trace.strings.Intern(kProfileIterationRange);
  const ThreadId thread(static_cast<int64_t>(::gettid()));
  for (const analysis::TimeWindow& w : windows) out.trace.ranges.push_back(NvtxRange{w.start_ns, w.end_ns, thread, name, {}});
  return out;
}

}  // namespace nimble::workflow
