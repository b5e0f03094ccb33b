// Records the caching allocator's requests in one memory pool, op by op, while a scheduled graph is
// captured into it on the calling thread (core/allocation_trace.h): the nimble::op_begin operators a
// marked rewrite inserts (stream_rewrite.h, RewriteOptions::mark_ops) name the op in progress; requests
// from threads without a recorder carry none (op -1). Installed by the capture (AotGraph,
// CaptureOptions::trace_allocations); one recorder per thread at a time.
//
// It turns the allocator's history on (CUDACachingAllocator::recordHistory, with the op in progress as
// each entry's context) for its lifetime only, and off again: nothing stays attached to the allocator
// afterwards, so later allocations cost what they did before. The history is the process's one: when
// someone else is recording it already (torch.cuda.memory._record_memory_history), the recorder leaves
// it alone and its trace is incomplete.
#pragma once

#include <c10/core/Allocator.h>

#include <cstdint>
#include <unordered_map>

#include "nimble/core/allocation_trace.h"

namespace nimble::accelerate {

class AllocationRecorder {
 public:
  // Records what the allocator does in `pool` from now until Take() or destruction.
  explicit AllocationRecorder(c10::MempoolId_t pool);
  ~AllocationRecorder();
  AllocationRecorder(const AllocationRecorder&) = delete;
  AllocationRecorder& operator=(const AllocationRecorder&) = delete;

  // This thread's recorder, or null.
  static AllocationRecorder* Current();
  void BeginOp(int64_t op) { op_ = static_cast<int32_t>(op); }
  int32_t op() const { return op_; }
  // Ends the recording and returns the pool's requests in order; complete unless the history was
  // someone else's, a free named a block allocated before the recording, an address was handed out
  // twice without a free between, or the history overflowed.
  AllocationTrace Take();

 private:
  void Stop();

  c10::MempoolId_t pool_;
  AllocationRecorder* previous_;
  int32_t op_ = -1;
  bool recording_ = false;
};

}  // namespace nimble::accelerate
