// Detaching CUPTI from the process once an in-process session has stopped. Private to the collector.
// CUPTI left attached keeps instrumenting every later launch: CUDA graph replays timed after a
// recording ran 6-17 % slower in the same process (H200, 2026-11-28).
#pragma once

#include "nimble/core/run.h"

namespace nimble::collector {

// Calls cuptiFinalize from the exit of a driver call this thread makes, as CUPTI advises, and says what
// happened as the stat `collector.cupti_left_attached` (0: detached; 1: still attached, and why).
// NIMBLE_CUPTI_DETACH=0 keeps CUPTI attached. The caller must have flushed every activity buffer, must
// not hold the lock of the buffer callbacks, and must register them again before the next session.
StatEntry DetachCupti();

}  // namespace nimble::collector
