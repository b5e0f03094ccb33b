#include "nimble/analysis/timeline.h"

#include <gtest/gtest.h>

#include "trace_testing.h"

namespace nimble::analysis {
namespace {

using testing::Copy;
using testing::Kernel;

TEST(TimelineTest, UnionOverlapStreamsAndRatio) {
  Trace t;
  // Stream 1: [0,100) [150,200); stream 2: [50,120) [300,400). Union: [0,120) [150,200) [300,400) = 270.
  t.kernels = {Kernel(0, 100, 1), Kernel(150, 200, 1), Kernel(50, 120, 2), Kernel(300, 400, 2)};
  const TimelineAnalyzer analyzer(t, DeviceId(0));
  ASSERT_EQ(analyzer.ActivitySpan(), (TimeWindow{0, 400}));
  const TimelineMetrics m = analyzer.Compute({0, 400});
  EXPECT_EQ(m.active_ns, 270);
  EXPECT_EQ(m.idle_ns, 130);
  EXPECT_EQ(m.overlap_ns, 50);
  EXPECT_DOUBLE_EQ(m.active_ratio, 270.0 / 400.0);
  EXPECT_EQ(m.kernel_count, 4);
  ASSERT_EQ(m.streams.size(), 2u);
  EXPECT_EQ(m.streams[0].stream, StreamId(1));
  EXPECT_EQ(m.streams[0].busy_ns, 150);
  EXPECT_EQ(m.streams[1].busy_ns, 170);
  ASSERT_EQ(m.gaps.size(), 2u);
  EXPECT_EQ(m.gaps[0].start_ns, 120);
  EXPECT_EQ(m.gaps[0].dur_ns, 30);
  EXPECT_EQ(m.gaps[1].start_ns, 200);
  EXPECT_EQ(m.gaps[1].dur_ns, 100);
  EXPECT_EQ(m.gaps[1].next_stream, StreamId(2));
}

TEST(TimelineTest, WindowClipsActivityAndCountsLeadingAndTrailingGaps) {
  Trace t;
  t.kernels = {Kernel(0, 100), Kernel(150, 250)};
  const TimelineMetrics m = TimelineAnalyzer(t, DeviceId(0)).Compute({50, 300});
  EXPECT_EQ(m.active_ns, 150);  // [50,100) + [150,250)
  EXPECT_EQ(m.kernel_count, 2);
  ASSERT_EQ(m.gaps.size(), 2u);
  EXPECT_EQ(m.gaps[0].start_ns, 100);
  EXPECT_EQ(m.gaps[1].start_ns, 250);
  EXPECT_EQ(m.gaps[1].dur_ns, 50);
  EXPECT_FALSE(m.gaps[1].next_stream.valid());
  EXPECT_EQ(m.idle_ns, 100);
  int64_t by_cause = 0;
  for (int64_t d : m.idle_by_cause.dur_ns) by_cause += d;
  EXPECT_EQ(by_cause, m.idle_ns);
}

TEST(TimelineTest, LongKernelStartingBeforeTheWindowStillCounts) {
  Trace t;
  t.kernels = {Kernel(0, 10), Kernel(20, 1000), Kernel(1001, 1002)};
  const TimelineMetrics m = TimelineAnalyzer(t, DeviceId(0)).Compute({900, 1100});
  EXPECT_EQ(m.active_ns, 101);
  EXPECT_EQ(m.gaps.front().start_ns, 1000);
}

TEST(TimelineTest, DeviceSideMemoryWorkIsActiveHostCopiesAreNot) {
  Trace t;
  t.kernels = {Kernel(0, 100)};
  t.memcpys = {Copy(100, 200, CopyKind::kDtoD), Copy(300, 400, CopyKind::kHtoD)};
  MemsetRecord set;
  set.start_ns = 200;
  set.end_ns = 250;
  set.device = DeviceId(0);
  set.stream = StreamId(7);
  t.memsets = {set};
  const TimelineMetrics m = TimelineAnalyzer(t, DeviceId(0)).Compute({0, 400});
  EXPECT_EQ(m.active_ns, 250);
  EXPECT_EQ(m.kernel_count, 1);
  ASSERT_EQ(m.gaps.size(), 1u);
  EXPECT_EQ(m.gaps[0].cause, GapCause::kMemoryCopy);
}

TEST(TimelineTest, GraphLaunchesAtGraphLevelAreActiveButNotKernels) {
  Trace t;
  t.kernels = {Kernel(0, 100, 1)};
  GraphLaunchRecord graph;  // a whole graph: busy from its first node's start to its last node's end
  graph.start_ns = 150;
  graph.end_ns = 400;
  graph.device = DeviceId(0);
  graph.stream = StreamId(2);
  graph.correlation = CorrelationId(77);
  graph.graph_id = 5;
  GraphLaunchRecord elsewhere = graph;
  elsewhere.device = DeviceId(1);
  GraphLaunchRecord host_first = graph;  // starts with a host node: CUPTI names no device
  host_first.device = DeviceId();
  t.graph_launches = {graph, elsewhere, host_first};
  const TimelineMetrics m = TimelineAnalyzer(t, DeviceId(0)).Compute({0, 500});
  EXPECT_EQ(m.active_ns, 350);
  EXPECT_EQ(m.kernel_count, 1);
  EXPECT_EQ(m.graph_launch_count, 1);
  EXPECT_EQ(m.overlap_ns, 0);
  ASSERT_EQ(m.streams.size(), 2u);
  EXPECT_EQ(m.streams[1].stream, StreamId(2));
  EXPECT_EQ(m.streams[1].busy_ns, 250);
  EXPECT_EQ(m.streams[1].kernel_count, 0);
  ASSERT_EQ(m.gaps.size(), 2u);
  EXPECT_EQ(m.gaps[0].start_ns, 100);
  EXPECT_EQ(m.gaps[0].next_correlation, CorrelationId(77));
  EXPECT_TRUE(m.gaps[0].next_from_graph);
  EXPECT_EQ(ActiveDevices(t), (std::vector<DeviceId>{DeviceId(0), DeviceId(1)}));
}

TEST(TimelineTest, OtherDevicesAreIgnored) {
  Trace t;
  t.kernels = {Kernel(0, 100, 1, -1, 0), Kernel(0, 500, 1, -1, 1)};
  EXPECT_EQ(TimelineAnalyzer(t, DeviceId(0)).Compute({0, 100}).active_ns, 100);
  EXPECT_EQ(ActiveDevices(t), (std::vector<DeviceId>{DeviceId(0), DeviceId(1)}));
  EXPECT_FALSE(TimelineAnalyzer(t, DeviceId(3)).ActivitySpan().has_value());
}

TEST(TimelineTest, IterationWindowsFromNvtxRanges) {
  Trace t;
  const StringId iter = t.strings.Intern("iteration");
  const StringId other = t.strings.Intern("forward");
  t.ranges = {{200, 300, ThreadId(1), iter, StringId()}, {0, 100, ThreadId(1), iter, StringId()},
              {0, 300, ThreadId(1), other, StringId()}, {400, 400, ThreadId(1), iter, StringId()}};
  EXPECT_EQ(WindowsFromNvtx(t, "iteration"), (std::vector<TimeWindow>{{0, 100}, {200, 300}}));
  EXPECT_TRUE(WindowsFromNvtx(t, "missing").empty());
}

TEST(TimelineTest, EmptyWindowHasNoRatio) {
  Trace t;
  t.kernels = {Kernel(0, 100)};
  const TimelineMetrics m = TimelineAnalyzer(t, DeviceId(0)).Compute({500, 500});
  EXPECT_EQ(m.active_ns, 0);
  EXPECT_EQ(m.active_ratio, 0);
  EXPECT_TRUE(m.gaps.empty());
}

}  // namespace
}  // namespace nimble::analysis
