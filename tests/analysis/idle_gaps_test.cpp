#include "nimble/analysis/idle_gaps.h"

#include <gtest/gtest.h>

#include "nimble/analysis/timeline.h"
#include "trace_testing.h"

namespace nimble::analysis {
namespace {

using testing::Copy;
using testing::Kernel;
using testing::LaunchCall;
using testing::Sync;

// Kernel A [0,100) then kernel B [170,200): one gap [100,170) ended by B (correlation 2).
Trace TwoKernels(int64_t b_launch_start_ns) {
  Trace t;
  t.kernels = {Kernel(0, 100, 7, 1), Kernel(170, 200, 7, 2)};
  t.api_calls = {LaunchCall(-20, -10, 1), LaunchCall(b_launch_start_ns, b_launch_start_ns + 10, 2)};
  return t;
}

std::vector<IdleGap> Gaps(const Trace& t) { return TimelineAnalyzer(t, DeviceId(0)).Compute({0, 200}).gaps; }

TEST(IdleGapsTest, HostLaunchedAfterTheGpuRanDry) {
  const auto gaps = Gaps(TwoKernels(150));
  ASSERT_EQ(gaps.size(), 1u);
  EXPECT_EQ(gaps[0].start_ns, 100);
  EXPECT_EQ(gaps[0].dur_ns, 70);
  EXPECT_EQ(gaps[0].cause, GapCause::kHostLaunchLate);
  EXPECT_EQ(gaps[0].next_correlation, CorrelationId(2));
}

TEST(IdleGapsTest, LaunchedBeforeTheGapIsOther) {
  EXPECT_EQ(Gaps(TwoKernels(50))[0].cause, GapCause::kOther);
  EXPECT_EQ(Gaps(TwoKernels(100))[0].cause, GapCause::kOther);  // began exactly when the GPU ran dry
}

TEST(IdleGapsTest, MissingApiRecordIsOther) {
  Trace t = TwoKernels(150);
  t.api_calls.pop_back();
  EXPECT_EQ(Gaps(t)[0].cause, GapCause::kOther);
}

TEST(IdleGapsTest, SynchronizationOverlappingTheGapWinsOverLateLaunch) {
  Trace t = TwoKernels(150);
  t.syncs = {Sync(60, 110)};  // host blocked until just after the GPU drained, then launched late
  EXPECT_EQ(Gaps(t)[0].cause, GapCause::kSynchronization);
}

TEST(IdleGapsTest, SynchronizationOnAnotherDeviceDoesNotCount) {
  Trace t = TwoKernels(150);
  t.syncs = {Sync(60, 110, /*device=*/1)};
  EXPECT_EQ(Gaps(t)[0].cause, GapCause::kHostLaunchLate);
}

TEST(IdleGapsTest, SynchronizationEndingBeforeTheGapDoesNotCount) {
  Trace t = TwoKernels(150);
  t.syncs = {Sync(60, 100)};
  EXPECT_EQ(Gaps(t)[0].cause, GapCause::kHostLaunchLate);
}

TEST(IdleGapsTest, HostCopyDuringTheGapWinsOverSynchronization) {
  Trace t = TwoKernels(150);
  t.syncs = {Sync(60, 110)};
  t.memcpys = {Copy(110, 140, CopyKind::kDtoH)};
  EXPECT_EQ(Gaps(t)[0].cause, GapCause::kMemoryCopy);
}

TEST(IdleGapsTest, DeviceToDeviceCopyIsActivityNotACause) {
  Trace t = TwoKernels(50);
  t.memcpys = {Copy(110, 140, CopyKind::kDtoD)};
  const auto gaps = Gaps(t);
  ASSERT_EQ(gaps.size(), 2u);  // [100,110) and [140,170)
  EXPECT_EQ(gaps[0].cause, GapCause::kOther);
  EXPECT_EQ(gaps[1].cause, GapCause::kOther);
}

// A CUDA graph replay: every kernel carries the graph launch's correlation id. The first kernel waits
// on a late graph launch; the gap between nodes inside the graph is not the host's fault.
TEST(IdleGapsTest, KernelsReplayedFromAGraph) {
  Trace t;
  t.kernels = {Kernel(0, 100, 7, 1), Kernel(170, 200, 7, 5), Kernel(230, 260, 7, 5)};
  t.kernels[1].graph_node_id = 11;
  t.kernels[1].graph_id = 3;
  t.kernels[2].graph_node_id = 12;
  t.kernels[2].graph_id = 3;
  t.api_calls = {LaunchCall(-20, -10, 1), LaunchCall(150, 155, 5)};
  const auto gaps = TimelineAnalyzer(t, DeviceId(0)).Compute({0, 260}).gaps;
  ASSERT_EQ(gaps.size(), 2u);
  EXPECT_EQ(gaps[0].cause, GapCause::kHostLaunchLate);
  EXPECT_TRUE(gaps[0].next_from_graph);
  EXPECT_EQ(gaps[1].cause, GapCause::kOther);
  EXPECT_EQ(gaps[1].dur_ns, 30);
}

TEST(IdleGapsTest, EarliestOfRuntimeAndDriverCallsIsTheLaunch) {
  Trace t = TwoKernels(50);  // runtime call at 50: launched in time
  t.api_calls.push_back(LaunchCall(150, 155, 2));  // the driver call it made, later
  EXPECT_EQ(Gaps(t)[0].cause, GapCause::kOther);
}

TEST(IdleGapsTest, ClassifierDirectly) {
  Trace t;
  t.syncs = {Sync(500, 600)};
  t.api_calls = {LaunchCall(40, 45, 9)};
  const GapClassifier classifier(t, DeviceId(0));
  EXPECT_EQ(classifier.Classify(10, 50, CorrelationId(9)), GapCause::kHostLaunchLate);
  EXPECT_EQ(classifier.Classify(10, 50, std::nullopt), GapCause::kOther);
  EXPECT_EQ(classifier.Classify(590, 700, std::nullopt), GapCause::kSynchronization);
  EXPECT_EQ(classifier.Classify(600, 700, CorrelationId(9)), GapCause::kOther);
}

TEST(IdleGapsTest, TotalsAndLongestGaps) {
  std::vector<IdleGap> gaps{{0, 5, GapCause::kOther, {}, {}, false},
                            {10, 50, GapCause::kHostLaunchLate, {}, {}, false},
                            {70, 50, GapCause::kSynchronization, {}, {}, false},
                            {200, 20, GapCause::kHostLaunchLate, {}, {}, false}};
  GapTotals totals;
  for (const IdleGap& g : gaps) totals.Add(g);
  EXPECT_EQ(totals.dur_ns_of(GapCause::kHostLaunchLate), 70);
  EXPECT_EQ(totals.count[static_cast<size_t>(GapCause::kHostLaunchLate)], 2);
  const auto top = LongestGaps(gaps, 2);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0].start_ns, 10);  // equal lengths: earlier first
  EXPECT_EQ(top[1].start_ns, 70);
  EXPECT_EQ(GapCauseName(GapCause::kMemoryCopy), "memory_copy");
}

}  // namespace
}  // namespace nimble::analysis
