// The host/GPU critical path on hand-built traces whose path can be worked out on paper.
#include "nimble/analysis/trace_critical_path.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "host_gpu_trace_builder.h"

namespace nimble::analysis {
namespace {

using testing::HostGpuTraceBuilder;

// A segment as the tests write it: step, span, and the record it names.
struct Expected {
  PathStep step;
  int64_t start_ns;
  int64_t end_ns;
  TraceRecordKind kind;
  int64_t index;
};

TraceRecordKind Api() { return TraceRecordKind::kApiCall; }
TraceRecordKind Kern() { return TraceRecordKind::kKernel; }

void ExpectPath(const TraceCriticalPath& path, const std::vector<Expected>& expected) {
  ASSERT_EQ(path.segments.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    const PathSegment& s = path.segments[i];
    const Expected& e = expected[i];
    SCOPED_TRACE("segment " + std::to_string(i));
    EXPECT_EQ(s.step, e.step) << PathStepName(s.step);
    EXPECT_EQ(s.start_ns, e.start_ns);
    EXPECT_EQ(s.end_ns, e.end_ns);
    EXPECT_EQ(s.record.kind, e.kind);
    EXPECT_EQ(s.record.index, e.index);
  }
  EXPECT_EQ(path.host_ns + path.gpu_ns + path.wait_ns, path.length_ns);
  EXPECT_EQ(path.end_ns - path.start_ns, path.length_ns);
}

constexpr TimeWindow kAll{0, 1000};

// Three small kernels, each launched long after the last one ended: the host bounds the window.
HostGpuTraceBuilder LaunchBound() {
  HostGpuTraceBuilder b;
  for (int64_t i = 0; i < 3; ++i) {
    const int64_t c = b.Call(30 * i, 30 * i + 10, "cudaLaunchKernel");
    b.Kernel(30 * i + 12, 30 * i + 15, 7, c, "tiny");
  }
  return b;
}

TEST(TraceCriticalPathTest, LaunchBoundPathRunsThroughTheHost) {
  const HostGpuTraceBuilder b = LaunchBound();
  const TraceCriticalPath path = ComputeTraceCriticalPath(b.trace, DeviceId(0), kAll);
  ExpectPath(path, {{PathStep::kApiCall, 0, 10, Api(), 0},
                    {PathStep::kHostCpu, 10, 30, Api(), 1},
                    {PathStep::kApiCall, 30, 40, Api(), 1},
                    {PathStep::kHostCpu, 40, 60, Api(), 2},
                    {PathStep::kApiCall, 60, 70, Api(), 2},
                    {PathStep::kLaunchLatency, 70, 72, Kern(), 2},
                    {PathStep::kGpuWork, 72, 75, Kern(), 2}});
  EXPECT_EQ(path.host_ns, 70);
  EXPECT_EQ(path.wait_ns, 2);
  EXPECT_EQ(path.gpu_ns, 3);
  EXPECT_EQ(path.NameOf(path.segments.back()), "tiny");
  EXPECT_EQ(path.NameOf(path.segments.front()), "cudaLaunchKernel");
  EXPECT_EQ(path.segments.front().thread, ThreadId(1));
  EXPECT_FALSE(path.segments.front().stream.valid());
  EXPECT_EQ(path.segments.back().stream, StreamId(7));
}

TEST(TraceCriticalPathTest, GpuBoundPathRunsThroughTheStream) {
  HostGpuTraceBuilder b;
  const int64_t c1 = b.Call(0, 2, "cudaLaunchKernel");
  const int64_t c2 = b.Call(3, 5, "cudaLaunchKernel");
  const int64_t c3 = b.Call(6, 8, "cudaLaunchKernel");
  b.Kernel(4, 40, 7, c1);
  b.Kernel(41, 80, 7, c2);
  b.Kernel(81, 120, 7, c3);
  const TraceCriticalPath path = ComputeTraceCriticalPath(b.trace, DeviceId(0), kAll);
  ExpectPath(path, {{PathStep::kApiCall, 0, 2, Api(), 0},
                    {PathStep::kLaunchLatency, 2, 4, Kern(), 0},
                    {PathStep::kGpuWork, 4, 40, Kern(), 0},
                    {PathStep::kStreamQueue, 40, 41, Kern(), 1},
                    {PathStep::kGpuWork, 41, 80, Kern(), 1},
                    {PathStep::kStreamQueue, 80, 81, Kern(), 2},
                    {PathStep::kGpuWork, 81, 120, Kern(), 2}});
  EXPECT_EQ(path.gpu_ns, 114);
  EXPECT_EQ(path.wait_ns, 4);
  EXPECT_EQ(path.host_ns, 2);
}

// A stream synchronization returns after the kernel it waits for: the path runs through the kernel,
// not through the host's time inside the call.
TEST(TraceCriticalPathTest, SyncReturnsAfterTheKernelItWaitedFor) {
  HostGpuTraceBuilder b;
  const int64_t launch = b.Call(0, 5, "cudaLaunchKernel");
  b.Kernel(10, 100, 7, launch, "big");
  const int64_t sync = b.Call(6, 105, "cudaStreamSynchronize");
  b.Call(110, 112, "cudaGetLastError");
  const std::vector<Expected> without_sync_record = {{PathStep::kApiCall, 0, 5, Api(), 0},
                                                     {PathStep::kHostCpu, 5, 6, Api(), 1},
                                                     {PathStep::kApiCall, 6, 105, Api(), 1},
                                                     {PathStep::kHostCpu, 105, 110, Api(), 2},
                                                     {PathStep::kApiCall, 110, 112, Api(), 2}};
  ExpectPath(ComputeTraceCriticalPath(b.trace, DeviceId(0), kAll), without_sync_record);
  b.Sync(SyncKind::kStreamSynchronize, sync, 7);
  const TraceCriticalPath path = ComputeTraceCriticalPath(b.trace, DeviceId(0), kAll);
  ExpectPath(path, {{PathStep::kApiCall, 0, 5, Api(), 0},
                    {PathStep::kLaunchLatency, 5, 10, Kern(), 0},
                    {PathStep::kGpuWork, 10, 100, Kern(), 0},
                    {PathStep::kSyncWakeup, 100, 105, Api(), 1},
                    {PathStep::kHostCpu, 105, 110, Api(), 2},
                    {PathStep::kApiCall, 110, 112, Api(), 2}});
  EXPECT_EQ(path.segments[3].thread, ThreadId(1));
  // A sync on another stream waits for nothing here: the host's own time is the path again.
  b.trace.syncs.back().stream = StreamId(8);
  ExpectPath(ComputeTraceCriticalPath(b.trace, DeviceId(0), kAll), without_sync_record);
}

// Stream 2 waits on an event recorded after kernel A on stream 1: B starts when A ends.
TEST(TraceCriticalPathTest, StreamWaitEventLinksTwoStreams) {
  HostGpuTraceBuilder b;
  const int64_t a = b.Call(0, 2, "cudaLaunchKernel");
  b.Kernel(5, 50, 1, a, "A");
  const int64_t decoy = b.Call(2, 3, "cudaLaunchKernel");
  b.Kernel(4, 30, 3, decoy, "C");  // on a third stream, ends earlier: not the binding one
  b.Call(3, 4, "cudaEventRecord");
  const int64_t wait = b.Call(5, 6, "cudaStreamWaitEvent");
  b.Sync(SyncKind::kStreamWaitEvent, wait, 2, 1);
  const int64_t launch_b = b.Call(7, 9, "cudaLaunchKernel");
  b.Kernel(51, 60, 2, launch_b, "B");
  const TraceCriticalPath path = ComputeTraceCriticalPath(b.trace, DeviceId(0), kAll);
  ExpectPath(path, {{PathStep::kApiCall, 0, 2, Api(), 0},
                    {PathStep::kLaunchLatency, 2, 5, Kern(), 0},
                    {PathStep::kGpuWork, 5, 50, Kern(), 0},
                    {PathStep::kEventWait, 50, 51, Kern(), 2},
                    {PathStep::kGpuWork, 51, 60, Kern(), 2}});
  EXPECT_EQ(path.segments[3].stream, StreamId(2));
  // Without the wait record nothing says B waited for A: B's own launch is its latest release.
  b.trace.syncs.clear();
  const TraceCriticalPath unlinked = ComputeTraceCriticalPath(b.trace, DeviceId(0), kAll);
  ASSERT_GE(unlinked.segments.size(), 2u);
  EXPECT_EQ(unlinked.segments[unlinked.segments.size() - 2].step, PathStep::kLaunchLatency);
}

// Kernels replayed from a CUDA graph carry the graph launch's correlation id; two nodes overlap on
// the stream (parallel branches), and the path follows the one that ended last before the next node.
TEST(TraceCriticalPathTest, GraphReplayFollowsItsNodes) {
  HostGpuTraceBuilder b;
  const int64_t launch = b.Call(0, 10, "cudaGraphLaunch");
  b.Kernel(12, 20, 7, launch, "g1", 0, 1);
  b.Kernel(21, 30, 7, launch, "g2", 0, 2);
  b.Kernel(21, 25, 7, launch, "g4", 0, 4);
  b.Kernel(31, 40, 7, launch, "g3", 0, 3);
  const TraceCriticalPath path = ComputeTraceCriticalPath(b.trace, DeviceId(0), kAll);
  ExpectPath(path, {{PathStep::kApiCall, 0, 10, Api(), 0},
                    {PathStep::kLaunchLatency, 10, 12, Kern(), 0},
                    {PathStep::kGpuWork, 12, 20, Kern(), 0},
                    {PathStep::kStreamQueue, 20, 21, Kern(), 1},
                    {PathStep::kGpuWork, 21, 30, Kern(), 1},
                    {PathStep::kStreamQueue, 30, 31, Kern(), 3},
                    {PathStep::kGpuWork, 31, 40, Kern(), 3}});
}

TEST(TraceCriticalPathTest, GraphLevelLaunchIsOneSpanOfGpuWork) {
  HostGpuTraceBuilder b;
  const int64_t launch = b.Call(0, 10, "cudaGraphLaunch");
  b.GraphLaunch(15, 90, 7, launch);
  const TraceCriticalPath path = ComputeTraceCriticalPath(b.trace, DeviceId(0), kAll);
  ExpectPath(path, {{PathStep::kApiCall, 0, 10, Api(), 0},
                    {PathStep::kLaunchLatency, 10, 15, TraceRecordKind::kGraphLaunch, 0},
                    {PathStep::kGpuWork, 15, 90, TraceRecordKind::kGraphLaunch, 0}});
  EXPECT_EQ(path.NameOf(path.segments.back()), "CUDA graph 3");
}

TEST(TraceCriticalPathTest, WindowClipsThePathAndEndsAtWhatEndedLastInIt) {
  const HostGpuTraceBuilder b = LaunchBound();
  const TraceCriticalPath path = ComputeTraceCriticalPath(b.trace, DeviceId(0), {35, 65});
  ExpectPath(path, {{PathStep::kApiCall, 35, 40, Api(), 1},
                    {PathStep::kLaunchLatency, 40, 42, Kern(), 1},
                    {PathStep::kGpuWork, 42, 45, Kern(), 1}});
  EXPECT_EQ(path.start_ns, 35);
  EXPECT_EQ(path.end_ns, 45);
  EXPECT_EQ(path.window, (TimeWindow{35, 65}));
  EXPECT_TRUE(ComputeTraceCriticalPath(b.trace, DeviceId(0), {200, 300}).empty());
  EXPECT_TRUE(ComputeTraceCriticalPath(b.trace, DeviceId(1), kAll).empty());
}

// A runtime call holds a driver call with the same correlation id; the kernel starts before the call
// returns, so the host's part ends at the kernel's start, inside the outer call.
TEST(TraceCriticalPathTest, NestedCallsBelongToTheOuterCall) {
  HostGpuTraceBuilder b;
  const int64_t c = b.Call(0, 20, "cudaLaunchKernel");
  b.Call(5, 15, "cuLaunchKernel", 1, c);
  b.Kernel(10, 30, 7, c);
  const TraceCriticalPath path = ComputeTraceCriticalPath(b.trace, DeviceId(0), kAll);
  ExpectPath(path, {{PathStep::kApiCall, 0, 10, Api(), 0}, {PathStep::kGpuWork, 10, 30, Kern(), 0}});
}

// A blocking cudaMemcpy returns after its copy; the async form does not wait.
TEST(TraceCriticalPathTest, SynchronousCopyReturnsAfterTheCopy) {
  HostGpuTraceBuilder b;
  const int64_t c = b.Call(0, 50, "cudaMemcpy_v3020");
  b.Copy(10, 45, 7, c, CopyKind::kDtoH);
  const TraceCriticalPath path = ComputeTraceCriticalPath(b.trace, DeviceId(0), kAll);
  ExpectPath(path, {{PathStep::kApiCall, 0, 10, Api(), 0},
                    {PathStep::kGpuWork, 10, 45, TraceRecordKind::kMemcpy, 0},
                    {PathStep::kSyncWakeup, 45, 50, Api(), 0}});
  EXPECT_EQ(path.NameOf(path.segments[1]), "Memcpy DtoH");
  b.trace.api_calls[0].name = b.trace.strings.Intern("cudaMemcpyAsync_v3020");
  ExpectPath(ComputeTraceCriticalPath(b.trace, DeviceId(0), kAll), {{PathStep::kApiCall, 0, 50, Api(), 0}});
}

// A second device's work and the calls of a thread that never touched this device stay off its path.
TEST(TraceCriticalPathTest, OtherDevicesAndTheirThreadsAreIgnored) {
  HostGpuTraceBuilder b;
  const int64_t c0 = b.Call(0, 5, "cudaLaunchKernel", 1);
  b.Kernel(6, 20, 7, c0, "on0", 0);
  const int64_t c1 = b.Call(0, 40, "cudaLaunchKernel", 2);
  b.Kernel(41, 90, 9, c1, "on1", 1);
  b.Call(50, 95, "cudaDeviceSynchronize", 2);
  const TraceCriticalPath path = ComputeTraceCriticalPath(b.trace, DeviceId(0), kAll);
  ASSERT_FALSE(path.empty());
  EXPECT_EQ(path.end_ns, 20);
  EXPECT_EQ(path.segments.back().record.index, 0);
  const TraceCriticalPath other = ComputeTraceCriticalPath(b.trace, DeviceId(1), kAll);
  EXPECT_EQ(other.end_ns, 95);  // thread 2's last call is on device 1's path
}

TEST(TraceCriticalPathTest, FinderAnswersManyWindowsLikeOneShotCalls) {
  const HostGpuTraceBuilder b = LaunchBound();
  const TraceCriticalPathFinder finder(b.trace, DeviceId(0));
  for (int64_t start = 0; start < 80; start += 7) {
    const TimeWindow w{start, start + 25};
    const TraceCriticalPath once = ComputeTraceCriticalPath(b.trace, DeviceId(0), w);
    const TraceCriticalPath many = finder.Find(w);
    EXPECT_EQ(many.segments, once.segments);
    EXPECT_EQ(many.names, once.names);
  }
}

TEST(TraceCriticalPathTest, NamesOfStepsKindsAndRecords) {
  EXPECT_EQ(PathStepName(PathStep::kSyncWakeup), "sync_wakeup");
  EXPECT_EQ(PathSegmentKindName(KindOf(PathStep::kHostCpu)), "host");
  EXPECT_EQ(KindOf(PathStep::kGpuWork), PathSegmentKind::kGpu);
  EXPECT_EQ(KindOf(PathStep::kEventWait), PathSegmentKind::kWait);
  EXPECT_EQ(TraceRecordKindName(TraceRecordKind::kMemset), "memset");
}

TEST(TraceCriticalPathTest, EveryStepHasANameAndALabel) {
  std::set<std::string_view> labels;
  for (size_t s = 0; s < kNumPathSteps; ++s) {
    const auto step = static_cast<PathStep>(s);
    EXPECT_NE(PathStepName(step), "?");
    EXPECT_NE(PathStepLabel(step), "?");
    EXPECT_TRUE(labels.insert(PathStepLabel(step)).second) << PathStepLabel(step);
  }
}

}  // namespace
}  // namespace nimble::analysis
