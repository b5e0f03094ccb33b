#include "allocation_recorder.h"

#include <c10/core/CachingDeviceAllocator.h>
#include <c10/cuda/CUDACachingAllocator.h>

#include <mutex>
#include <utility>

namespace nimble::accelerate {
namespace {

thread_local AllocationRecorder* g_recorder = nullptr;

// The allocator keeps its trace hooks for the life of the process: one, attached on first use, that
// hands entries to the calling thread's recorder when there is one.
void AttachHookOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    c10::cuda::CUDACachingAllocator::attachAllocatorTraceTracker(
        [](const c10::CachingDeviceAllocator::TraceEntry& entry) {
          if (AllocationRecorder* recorder = g_recorder) {
            recorder->OnEntry(static_cast<int>(entry.action_), entry.addr_, entry.size_, entry.mempool_);
          }
        });
  });
}

}  // namespace

AllocationRecorder::AllocationRecorder(c10::MempoolId_t pool) : pool_(std::move(pool)), previous_(g_recorder) {
  AttachHookOnce();
  trace_.complete = true;
  g_recorder = this;
}

AllocationRecorder::~AllocationRecorder() { g_recorder = previous_; }

AllocationRecorder* AllocationRecorder::Current() { return g_recorder; }

void AllocationRecorder::OnEntry(int action, size_t addr, size_t size, const c10::MempoolId_t& pool) {
  using Action = c10::CachingDeviceAllocator::TraceEntry::Action;
  if (pool != pool_) return;
  switch (static_cast<Action>(action)) {
    case Action::ALLOC: {
      const int64_t block = next_block_++;
      // An address still live: its free was not seen (another thread's, or deferred), so the block
      // would never be freed in the trace.
      if (live_.count(addr) != 0) trace_.complete = false;
      live_[addr] = block;
      trace_.events.push_back({AllocationEvent::Kind::kAlloc, op_, block, static_cast<int64_t>(size)});
      break;
    }
    case Action::FREE_COMPLETED: {
      auto it = live_.find(addr);
      if (it == live_.end()) {
        trace_.complete = false;  // a block from before the recording
        break;
      }
      trace_.events.push_back({AllocationEvent::Kind::kFree, op_, it->second, static_cast<int64_t>(size)});
      live_.erase(it);
      break;
    }
    case Action::SEGMENT_ALLOC:
      trace_.segment_bytes += static_cast<int64_t>(size);
      break;
    default:
      break;
  }
}

AllocationTrace AllocationRecorder::Take() { return std::move(trace_); }

}  // namespace nimble::accelerate
