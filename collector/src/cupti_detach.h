// Detaching CUPTI from the process once an in-process session has stopped. Private to the collector.
// CUPTI left attached keeps instrumenting every later launch: CUDA graph replays timed after a
// recording ran 6-21 % slower in the same process (H200, 2026-11-28 and 29).
#pragma once

#include "nimble/core/run.h"

namespace nimble::collector {

// Calls cuptiFinalize from the exit of a driver call, as CUPTI advises (the one this thread makes to
// trigger it, or one another thread made first), and says what
// happened as the stat `collector.cupti_left_attached` (0: detached; 1: still attached, and why).
// NIMBLE_CUPTI_DETACH=0 keeps CUPTI attached. The caller must have flushed every activity buffer, must
// not hold the lock of the buffer callbacks, and must register them again before the next session; no
// other session may start while it runs (sessions start and stop on one thread).
StatEntry DetachCupti();

}  // namespace nimble::collector
