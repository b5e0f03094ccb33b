// Records the caching allocator's requests in one memory pool, op by op, while a scheduled graph runs
// on the calling thread (core/allocation_trace.h): the nimble::op_begin operators a marked rewrite
// inserts (stream_rewrite.h, RewriteOptions::mark_ops) name the op in progress. Installed by the capture
// (AotGraph, CaptureOptions::trace_allocations); one recorder per thread at a time.
#pragma once

#include <c10/core/Allocator.h>

#include <cstdint>
#include <unordered_map>

#include "nimble/core/allocation_trace.h"

namespace nimble::accelerate {

class AllocationRecorder {
 public:
  // Records what the allocator does in `pool` on this thread from now until destruction.
  explicit AllocationRecorder(c10::MempoolId_t pool);
  ~AllocationRecorder();
  AllocationRecorder(const AllocationRecorder&) = delete;
  AllocationRecorder& operator=(const AllocationRecorder&) = delete;

  // This thread's recorder, or null.
  static AllocationRecorder* Current();
  void BeginOp(int64_t op) { op_ = static_cast<int32_t>(op); }
  // The trace so far; complete unless a free named a block allocated before the recorder.
  AllocationTrace Take();

  // Called by the allocator's trace hook (under its lock, so: no allocator calls in here).
  void OnEntry(int action, size_t addr, size_t size, const c10::MempoolId_t& pool);

 private:
  c10::MempoolId_t pool_;
  AllocationRecorder* previous_;
  int32_t op_ = -1;
  int64_t next_block_ = 0;
  std::unordered_map<size_t, int64_t> live_;  // address -> block id
  AllocationTrace trace_;
};

}  // namespace nimble::accelerate
