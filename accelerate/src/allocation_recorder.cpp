#include "allocation_recorder.h"

#include <c10/core/CachingDeviceAllocator.h>
#include <c10/cuda/CUDACachingAllocator.h>

#include <memory>
#include <utility>

namespace nimble::accelerate {
namespace {

namespace alloc = c10::cuda::CUDACachingAllocator;
using Action = c10::CachingDeviceAllocator::TraceEntry::Action;

thread_local AllocationRecorder* g_recorder = nullptr;

// The op in progress on the thread that made the request, kept with each history entry.
struct OpContext final : c10::GatheredContext {
  explicit OpContext(int32_t op) : op(op) {}
  int32_t op;
};

// Called by the allocator for each entry while the history is on, on the thread that made the
// request (for some entries with the allocator's lock held): no allocator calls in here. Threads
// without a recorder get no context, as with the history off.
std::shared_ptr<c10::GatheredContext> CurrentOp() {
  const AllocationRecorder* recorder = g_recorder;
  if (recorder == nullptr) return nullptr;
  return std::make_shared<OpContext>(recorder->op());
}

// More entries than one capture makes (a few per op); a history that fills it has lost its oldest.
constexpr size_t kMaxEntries = size_t{1} << 22;

}  // namespace

AllocationRecorder::AllocationRecorder(c10::MempoolId_t pool) : pool_(std::move(pool)), previous_(g_recorder) {
  g_recorder = this;
  if (alloc::isHistoryEnabled()) return;  // someone else's recording: left alone, and nothing recorded here
  alloc::recordHistory(true, &CurrentOp, kMaxEntries, alloc::RecordContext::ALL, /*clearHistory=*/true, {});
  recording_ = true;
}

AllocationRecorder::~AllocationRecorder() {
  Stop();
  g_recorder = previous_;
}

void AllocationRecorder::Stop() {
  if (!recording_) return;
  recording_ = false;
  alloc::recordHistory(false, nullptr, 0, alloc::RecordContext::NEVER, /*clearHistory=*/true, {});
}

AllocationRecorder* AllocationRecorder::Current() { return g_recorder; }

AllocationTrace AllocationRecorder::Take() {
  if (!recording_) return AllocationTrace{};  // incomplete
  const alloc::SnapshotInfo snapshot = alloc::snapshot(pool_, /*include_traces=*/true);
  Stop();
  AllocationTrace trace;
  trace.complete = true;
  std::unordered_map<size_t, int64_t> live;  // address -> block id
  int64_t next_block = 0;
  for (const auto& entries : snapshot.device_traces) {
    if (entries.size() >= kMaxEntries) trace.complete = false;  // the oldest were dropped
    for (const auto& entry : entries) {
      if (entry.mempool_ != pool_) continue;
      const auto* context = dynamic_cast<const OpContext*>(entry.context_.get());
      const int32_t op = context != nullptr ? context->op : -1;
      switch (entry.action_) {
        case Action::ALLOC: {
          // An address still live: its free was not seen, so the block would never be freed in the trace.
          if (live.count(entry.addr_) != 0) trace.complete = false;
          live[entry.addr_] = next_block;
          trace.events.push_back({AllocationEvent::Kind::kAlloc, op, next_block++, static_cast<int64_t>(entry.size_)});
          break;
        }
        case Action::FREE_COMPLETED: {
          auto it = live.find(entry.addr_);
          if (it == live.end()) {
            trace.complete = false;  // a block from before the recording
            break;
          }
          trace.events.push_back({AllocationEvent::Kind::kFree, op, it->second, static_cast<int64_t>(entry.size_)});
          live.erase(it);
          break;
        }
        case Action::SEGMENT_ALLOC:
          trace.segment_bytes += static_cast<int64_t>(entry.size_);
          break;
        default:
          break;
      }
    }
  }
  return trace;
}

}  // namespace nimble::accelerate
