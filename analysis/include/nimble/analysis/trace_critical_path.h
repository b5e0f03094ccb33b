// The critical path through host and GPU of one device in a time window, from a trace's records alone
// (no op graph): API calls, CPU time, GPU work and waits, split into host, GPU and waiting time.
// Invariant: segments are contiguous, in time order, and sum to the span. A finder indexes one device
// of a trace that must outlive it, once (O(n log n)); Find() is const, callable from several threads.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "nimble/analysis/time_window.h"
#include "nimble/core/trace.h"

namespace nimble::analysis {

// What the records say orders the work (the edges the path follows; ns clocks of host and GPU agree):
//   host thread order  an API call starts after the previous one on its thread ended (a call nested in
//                      another, e.g. a driver call inside a runtime call, belongs to the outer one);
//   launch             GPU work starts after its launching call began (the call with its correlation id;
//                      kernels replayed from a CUDA graph carry the graph launch's);
//   stream order       GPU work starts after the previous work on its stream ended;
//   stream wait event  the first work enqueued on the waiting stream after cudaStreamWaitEvent starts
//                      after work on the device that was enqueued before the wait;
//   host sync          a stream, context or event synchronization (and a synchronous cudaMemcpy) returns
//                      after GPU work enqueued before it ended; a stream's, after its own work and after
//                      the work that event waits enqueued on it before the sync made it wait for.
// What the records cannot say: which stream recorded the event a stream or the host waited for (they
// carry the event id and the waiting side only), so the waited-for work is taken to be the latest-ending
// work enqueued before the wait that ended in time (the whole device for event and context syncs, the
// stream for stream syncs); when inside its launching call the work was enqueued; dependencies between
// nodes of one CUDA graph beyond stream order; and CPU work on other threads (locks, queues) that the
// path's thread waited for, which counts as host time. NVTX ranges order nothing; they mark windows.

enum class PathSegmentKind : int32_t { kHost = 0, kGpu = 1, kWait = 2 };

// Finer than the kind: which edge or record a segment is.
enum class PathStep : int32_t {
  kApiCall = 0,        // host: inside an API call (the record)
  kHostCpu = 1,        // host: CPU time on the thread before the API call (the record)
  kGpuWork = 2,        // gpu:  the kernel, copy, memset or graph-level graph launch (the record)
  kLaunchLatency = 3,  // wait: from the launching call's end to the start of the work (the record)
  kStreamQueue = 4,    // wait: from the end of the previous work on the stream to the work (the record)
  kEventWait = 5,      // wait: from the end of work on the device to the waiting stream's work (the record)
  kSyncWakeup = 6,     // wait: from the end of the waited-for GPU work to the return of the call (the record)
};
inline constexpr size_t kNumPathSteps = 7;

// "api_call", "host_cpu", "gpu_work", "launch_latency", "stream_queue", "event_wait", "sync_wakeup".
std::string_view PathStepName(PathStep step);
// The words reports and the viewer show: "API call", "CPU before call", "GPU work", "launch latency",
// "stream queue", "event wait", "sync wake-up".
std::string_view PathStepLabel(PathStep step);
// "host", "gpu", "wait".
std::string_view PathSegmentKindName(PathSegmentKind kind);
PathSegmentKind KindOf(PathStep step);

// A record of the Trace: its kind and its position in that kind's vector.
enum class TraceRecordKind : int32_t { kNone = 0, kApiCall = 1, kKernel = 2, kMemcpy = 3, kMemset = 4, kGraphLaunch = 5 };
std::string_view TraceRecordKindName(TraceRecordKind kind);  // "api_call", "kernel", "memcpy", ...

struct TraceRecordRef {
  TraceRecordKind kind = TraceRecordKind::kNone;
  int64_t index = -1;
  friend auto operator<=>(const TraceRecordRef&, const TraceRecordRef&) = default;
};

struct PathSegment {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  PathStep step = PathStep::kGpuWork;
  TraceRecordRef record;  // see PathStep
  StreamId stream;        // the record's stream (GPU work and the waits before it); invalid on host steps
  ThreadId thread;        // the record's thread (API calls, CPU time, sync wake-ups); invalid on GPU steps
  int32_t name = -1;      // index into TraceCriticalPath::names; -1 when the record has no name
  PathSegmentKind kind() const { return KindOf(step); }
  int64_t dur_ns() const { return end_ns - start_ns; }
  friend bool operator==(const PathSegment&, const PathSegment&) = default;
};

struct TraceCriticalPath {
  TimeWindow window;                  // the window asked for
  int64_t start_ns = 0;               // the path's first instant (the window start, or its first record's)
  int64_t end_ns = 0;                 // the end of what ended last in the window
  int64_t length_ns = 0;              // end_ns - start_ns == host_ns + gpu_ns + wait_ns
  int64_t host_ns = 0;
  int64_t gpu_ns = 0;
  int64_t wait_ns = 0;
  std::vector<PathSegment> segments;  // in time order, contiguous, none empty
  std::vector<std::string> names;     // kernel short names and API call names the segments use
  bool empty() const { return segments.empty(); }
  const std::string& NameOf(const PathSegment& segment) const;  // "" without a name
};

class TraceCriticalPathFinder {
 public:
  TraceCriticalPathFinder(const Trace& trace, DeviceId device);
  ~TraceCriticalPathFinder();
  TraceCriticalPathFinder(TraceCriticalPathFinder&&) noexcept;
  TraceCriticalPathFinder& operator=(TraceCriticalPathFinder&&) noexcept;

  // Walks back from what ended last in the window (the device's GPU work and the API calls of the
  // threads that launched or waited for it; ties: the lowest record) taking, at each step, the
  // predecessor that released it last (ties: stream order, stream wait, launch; then the lowest
  // record), down to the window start or a record with none. Empty when nothing ends in the window.
  TraceCriticalPath Find(TimeWindow window) const;

 private:
  struct Index;
  const Trace* trace_;
  std::unique_ptr<const Index> index_;
};

// One window: builds a finder and asks it once.
TraceCriticalPath ComputeTraceCriticalPath(const Trace& trace, DeviceId device, TimeWindow window);

}  // namespace nimble::analysis
