// The host/GPU critical path on thousands of random small traces, against a brute force over the
// explicit event graph: the same segments (so each step is an edge of the graph and no predecessor
// released its event later than the one taken), contiguous, inside the window, split summing to the span.
#include <gtest/gtest.h>

#include <array>
#include <random>
#include <string>
#include <vector>

#include "host_gpu_brute_force.h"
#include "host_gpu_trace_builder.h"
#include "nimble/analysis/trace_critical_path.h"

namespace nimble::analysis {
namespace {

using testing::BruteForceHostGpuPath;
using testing::HostGpuTraceBuilder;

// A small program: host threads issue calls on a coarse clock (so times tie often), streams run the
// work in order after its launch, and now and then a record breaks the rules (work before its launch,
// overlapping calls, work with no launch call) as imported traces can.
class RandomProgram {
 public:
  explicit RandomProgram(std::mt19937_64& rng) : rng_(rng) {}

  Trace Make() {
    threads_ = 1 + static_cast<int>(rng_() % 2);
    devices_ = 1 + static_cast<int>(rng_() % 2);
    streams_ = 1 + static_cast<int>(rng_() % 3);
    thread_now_.assign(static_cast<size_t>(threads_), static_cast<int64_t>(rng_() % 4));
    stream_free_.assign(static_cast<size_t>(devices_ * streams_), 0);
    const int ops = 2 + static_cast<int>(rng_() % 14);
    for (int i = 0; i < ops; ++i) Op();
    return b_.trace;
  }

 private:
  int64_t R(int64_t n) { return static_cast<int64_t>(rng_() % static_cast<uint64_t>(n)); }

  int64_t StreamOf(int device, int s) const { return 10 * device + s; }
  int64_t& Free(int device, int s) { return stream_free_[static_cast<size_t>(device * streams_ + s)]; }

  // GPU work launched at `call_start`: after the launch and the stream's previous work, mostly.
  std::pair<int64_t, int64_t> Place(int device, int s, int64_t call_start) {
    int64_t start = std::max(call_start + R(5), Free(device, s) + R(2));
    if (R(12) == 0) start = R(40);  // out of order
    const int64_t end = start + (R(6) == 0 ? 0 : R(9));
    Free(device, s) = std::max(Free(device, s), end);
    return {start, end};
  }

  void Op() {
    const int64_t thread = 1 + R(threads_);
    int64_t& now = thread_now_[static_cast<size_t>(thread - 1)];
    const int64_t start = R(10) == 0 ? std::max<int64_t>(0, now - R(3)) : now + R(4);  // sometimes overlaps
    int64_t end = start + R(5);
    const int device = static_cast<int>(R(devices_));
    const int s = static_cast<int>(R(streams_));
    const int64_t stream = StreamOf(device, s);
    const int64_t kind = R(15);
    if (kind <= 4) {
      const int64_t c = b_.Call(start, end, "cudaLaunchKernel", thread);
      const auto [ks, ke] = Place(device, s, start);
      b_.Kernel(ks, ke, stream, c, "k" + std::to_string(R(3)), device);
    } else if (kind == 5) {
      const bool sync = R(2) == 0;
      const int64_t c = b_.Call(start, end, sync ? "cudaMemcpy" : "cudaMemcpyAsync", thread);
      const auto [cs, ce] = Place(device, s, start);
      b_.Copy(cs, ce, stream, c, CopyKind::kHtoD, device);
      if (sync) end = std::max(end, ce + R(3));
      b_.trace.api_calls.back().end_ns = end;
    } else if (kind == 6) {
      const int64_t c = b_.Call(start, end, "cudaMemsetAsync", thread);
      const auto [ms, me] = Place(device, s, start);
      b_.Set(ms, me, stream, c, device);
    } else if (kind == 7) {  // a graph replay: nodes share the launch's correlation, may overlap
      const int64_t c = b_.Call(start, end, "cudaGraphLaunch", thread);
      const int64_t nodes = 1 + R(3);
      for (int64_t k = 0; k < nodes; ++k) {
        const auto [ks, ke] = Place(device, s, start);
        b_.Kernel(ks - (R(3) == 0 ? R(4) : 0), ke, stream, c, "g", device, k + 1);
      }
    } else if (kind == 8) {
      const int64_t c = b_.Call(start, end, "cudaStreamWaitEvent", thread);
      b_.Sync(SyncKind::kStreamWaitEvent, c, stream, R(3));
      const int other = static_cast<int>((s + 1 + R(streams_)) % streams_);  // whose event it waits for
      Free(device, s) = std::max(Free(device, s), Free(device, other) + R(2));
      if (R(2) == 0) {  // and the waiting stream's next work, launched right after
        const int64_t launch = b_.Call(end, end + R(3), "cudaLaunchKernel", thread);
        const auto [ks, ke] = Place(device, s, end);
        b_.Kernel(ks, ke, stream, launch, "after_wait", device);
        end = b_.trace.api_calls.back().end_ns;
      }
    } else if (kind == 9) {
      end = std::max(end, Free(device, s) + R(3));
      const int64_t c = b_.Call(start, end, "cudaStreamSynchronize", thread);
      b_.Sync(SyncKind::kStreamSynchronize, c, stream, 0, R(2) == 0 ? device : -1);
    } else if (kind == 10) {
      for (int k = 0; k < streams_; ++k) end = std::max(end, Free(device, k) + R(2));
      const int64_t c = b_.Call(start, end, R(2) ? "cudaDeviceSynchronize" : "cudaEventSynchronize", thread);
      b_.Sync(R(2) ? SyncKind::kContextSynchronize : SyncKind::kEventSynchronize, c, -1, 1, R(2) == 0 ? device : -1);
    } else if (kind == 11) {  // runtime call around a driver call, one correlation id
      end = start + 2 + R(5);
      const int64_t c = b_.Call(start, end, "cudaLaunchKernel", thread);
      b_.Call(start + 1, end - R(2), "cuLaunchKernel", thread, c);
      const auto [ks, ke] = Place(device, s, start);
      b_.Kernel(ks, ke, stream, c, "k", device);
    } else if (kind == 12) {
      const int64_t c = b_.Call(start, end, "cudaGraphLaunch", thread);
      const auto [gs, ge] = Place(device, s, start);
      b_.GraphLaunch(gs, ge, stream, c, device);
    } else if (kind == 13) {  // no launch call recorded
      const auto [ks, ke] = Place(device, s, start);
      b_.Kernel(ks, ke, stream, 1000 + R(5), "orphan", device);
    } else {
      b_.Call(start, end, "cudaGetLastError", thread);
    }
    now = std::max(now, end);
  }

  std::mt19937_64& rng_;
  HostGpuTraceBuilder b_;
  int threads_ = 1, devices_ = 1, streams_ = 1;
  std::vector<int64_t> thread_now_;
  std::vector<int64_t> stream_free_;
};

void CheckShape(const TraceCriticalPath& path, TimeWindow window) {
  ASSERT_EQ(path.window, window);
  if (path.empty()) {
    ASSERT_EQ(path.length_ns, 0);
    return;
  }
  ASSERT_EQ(path.segments.front().start_ns, path.start_ns);
  ASSERT_EQ(path.segments.back().end_ns, path.end_ns);
  ASSERT_GE(path.start_ns, window.start_ns);
  ASSERT_LE(path.end_ns, window.end_ns);
  std::array<int64_t, 3> by_kind{};
  for (size_t i = 0; i < path.segments.size(); ++i) {
    const PathSegment& s = path.segments[i];
    ASSERT_GT(s.dur_ns(), 0) << "segment " << i;
    if (i > 0) {
      ASSERT_EQ(path.segments[i - 1].end_ns, s.start_ns) << "segment " << i;
    }
    by_kind[static_cast<size_t>(s.kind())] += s.dur_ns();
    ASSERT_EQ(s.thread.valid(), s.kind() == PathSegmentKind::kHost || s.step == PathStep::kSyncWakeup);
    ASSERT_EQ(s.stream.valid(), !s.thread.valid());
  }
  ASSERT_EQ(by_kind[0], path.host_ns);
  ASSERT_EQ(by_kind[1], path.gpu_ns);
  ASSERT_EQ(by_kind[2], path.wait_ns);
  ASSERT_EQ(path.host_ns + path.gpu_ns + path.wait_ns, path.length_ns);
  ASSERT_EQ(path.end_ns - path.start_ns, path.length_ns);
}

std::vector<PathSegment> WithoutNames(std::vector<PathSegment> segments) {
  for (PathSegment& s : segments) s.name = -1;
  return segments;
}

TEST(TraceCriticalPathPropertyTest, MatchesBruteForceOnThousandsOfRandomTraces) {
  std::mt19937_64 rng(20261124);
  std::array<int64_t, kNumPathSteps> steps_seen{};
  int64_t compared = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const Trace trace = RandomProgram(rng).Make();
    for (int32_t d = 0; d < 2; ++d) {
      const DeviceId device(d);
      const TraceCriticalPathFinder finder(trace, device);
      const BruteForceHostGpuPath brute(trace, device);
      for (int w = 0; w < 4; ++w) {
        const int64_t a = static_cast<int64_t>(rng() % 60);
        const TimeWindow window = w == 0 ? TimeWindow{0, 1000} : TimeWindow{a, a + 1 + static_cast<int64_t>(rng() % 40)};
        const TraceCriticalPath path = finder.Find(window);
        SCOPED_TRACE("trial " + std::to_string(trial) + ", device " + std::to_string(d) + ", window [" +
                     std::to_string(window.start_ns) + ", " + std::to_string(window.end_ns) + ")");
        ASSERT_NO_FATAL_FAILURE(CheckShape(path, window));
        ASSERT_EQ(WithoutNames(path.segments), brute.Walk(window));
        for (const PathSegment& s : path.segments) ++steps_seen[static_cast<size_t>(s.step)];
        ++compared;
      }
    }
  }
  // The generator must reach every kind of step, or the comparison says little.
  for (size_t s = 0; s < kNumPathSteps; ++s) {
    EXPECT_GT(steps_seen[s], 50) << PathStepName(static_cast<PathStep>(s));
  }
  EXPECT_EQ(compared, 4000 * 2 * 4);
}

// Many records at equal times and of zero length: the walk still ends (the graph has no cycle).
TEST(TraceCriticalPathPropertyTest, ZeroLengthRecordsAtOneInstantEnd) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 500; ++trial) {
    HostGpuTraceBuilder b;
    const int n = 1 + static_cast<int>(rng() % 8);
    for (int i = 0; i < n; ++i) {
      const int64_t c = b.Call(5, 5 + static_cast<int64_t>(rng() % 2), i % 3 == 0 ? "cudaMemcpy" : "cudaLaunchKernel",
                               1 + static_cast<int64_t>(rng() % 2));
      if (rng() % 2) b.Copy(5, 5, 7 + static_cast<int64_t>(rng() % 2), c);
      else b.Kernel(5, 5 + static_cast<int64_t>(rng() % 2), 7, c);
      if (rng() % 3 == 0) b.Sync(rng() % 2 ? SyncKind::kStreamSynchronize : SyncKind::kStreamWaitEvent, c, 7);
    }
    const TraceCriticalPath path = ComputeTraceCriticalPath(b.trace, DeviceId(0), {0, 10});
    ASSERT_NO_FATAL_FAILURE(CheckShape(path, {0, 10}));
    ASSERT_EQ(WithoutNames(path.segments), BruteForceHostGpuPath(b.trace, DeviceId(0)).Walk({0, 10}));
  }
}

}  // namespace
}  // namespace nimble::analysis
