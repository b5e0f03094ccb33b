// The streams and events that one execution of a scheduled graph switches between. The nimble::
// operators the stream rewrite inserts act on the context installed on the calling thread; with none
// installed (CPU runs, a plain module.forward) they do nothing, so a scheduled module still computes
// the same outputs anywhere. One context per executor; use it from the thread that installed it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "nimble/core/status.h"

namespace c10 {
struct IValue;
}

namespace nimble::accelerate {

// CUDA streams of our own (non-blocking) on one device, made on first use and destroyed with the last
// holder, after a wait for each. Graphs that capture into one memory pool share one set: the caching
// allocator hands a freed block only to an allocation on the stream it was made on, so graphs captured
// on other streams could never reuse each other's blocks.
class StreamSet {
 public:
  explicit StreamSet(int device) : device_(device) {}
  ~StreamSet();
  StreamSet(const StreamSet&) = delete;
  StreamSet& operator=(const StreamSet&) = delete;

  // Stream `index` of the set (an AotGraph's capture stream is 0, its side streams 1, 2, ...).
  StatusOr<cudaStream_t> At(size_t index);
  int device() const { return device_; }

 private:
  int device_;
  std::vector<cudaStream_t> streams_;
};

class StreamContext {
 public:
  // Streams 1..num_streams-1 are streams 1.. of `streams` (a set of its own when null), and
  // `num_events` sync events are created here (events without timing); stream 0 is whatever stream is
  // current when fork_streams runs, so the same context serves eager runs and a capture on the
  // capturing stream.
  // With `branches`, no side stream is made: every op runs on stream 0 in graph order, and a capture
  // there makes each schedule stream a branch of the graph instead (branch_capture.h), so that the
  // caching allocator reuses memory across them.
  static StatusOr<std::unique_ptr<StreamContext>> Create(int device, int32_t num_streams, int32_t num_events,
                                                         std::shared_ptr<StreamSet> streams = nullptr,
                                                         bool branches = false);
  ~StreamContext();
  StreamContext(const StreamContext&) = delete;
  StreamContext& operator=(const StreamContext&) = delete;

  // The operators' work; each throws c10::Error (naming the CUDA error) so the interpreter reports
  // the node that failed.
  void Fork();
  void SetStream(int64_t stream);
  void Record(int64_t event);
  void Wait(int64_t event);
  // Marks the CUDA tensors in `value` as used on the current stream (CUDACachingAllocator::recordStream).
  void RecordUse(const c10::IValue& value);
  // During a capture (stream 0 capturing), after Fork: for each stream s with bytes[s] > 0, one block of
  // that many bytes allocated and freed at once on it through the caching allocator, so that the
  // capture's pool holds a segment of that size for the stream's later requests (RewriteOptions::
  // pool_seeds). Outside a capture it does nothing: the default pool keeps what it caches.
  void SeedPool(const std::vector<int64_t>& bytes);
  void Join();
  // Makes the current stream wait for everything queued so far on the side streams, outside a fork:
  // the backward autograd runs on them after a training step's forward has joined (training_schedule.h).
  void JoinSideStreams();
  // After a run that threw between Fork and Join: joins every side stream back into stream 0 (so a
  // capture can end), makes stream 0 current again and forgets the fork. Never throws; CUDA errors
  // are ignored (an invalidated capture refuses the records, and ending it cleans up anyway).
  void Abort() noexcept;

  int32_t num_streams() const { return branches_ ? branch_count_ : static_cast<int32_t>(side_streams_.size()) + 1; }
  bool branches() const { return branches_; }
  // Of the last branch capture that joined: allocations that waited for memory another branch freed,
  // and the dependencies added for them.
  int64_t reused_blocks() const { return reused_blocks_; }
  int64_t hazard_edges() const { return hazard_edges_; }

  // The context the operators on this thread use (null: they do nothing).
  static StreamContext* Current();

 private:
  StreamContext() = default;
  cudaStream_t StreamAt(int64_t stream) const;

  int device_ = 0;
  cudaStream_t origin_ = nullptr;  // stream 0 of the running execution, set by Fork
  bool forked_ = false;
  std::shared_ptr<StreamSet> streams_;  // owns side_streams_
  std::vector<cudaStream_t> side_streams_;
  std::vector<cudaEvent_t> sync_events_;
  cudaEvent_t fork_event_ = nullptr;
  std::vector<cudaEvent_t> join_events_;  // one per side stream
  int32_t num_events_ = 0;
  bool branches_ = false;
  int32_t branch_count_ = 1;
  std::unique_ptr<class BranchCapture> capture_;  // between Fork and Join of a branch capture
  int64_t reused_blocks_ = 0, hazard_edges_ = 0;
};

// Installs a context on this thread for its lifetime, restoring the previous one after.
class StreamContextScope {
 public:
  explicit StreamContextScope(StreamContext* context);
  ~StreamContextScope();
  StreamContextScope(const StreamContextScope&) = delete;
  StreamContextScope& operator=(const StreamContextScope&) = delete;

 private:
  StreamContext* previous_;
};

// Makes sure the nimble:: operators are registered (and this file linked) before a scheduled graph
// is built, compiled or loaded. Cheap and idempotent.
void RegisterNimbleOps();

}  // namespace nimble::accelerate
