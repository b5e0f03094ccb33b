#include "nimble/analysis/activity_sweep.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "nimble/analysis/timeline.h"
#include "trace_testing.h"

namespace nimble::analysis {
namespace {

struct Act {
  int64_t start_ns;
  int64_t end_ns;
  int64_t stream;
};

// Random activities on a small clock (some empty, some ending before they start), sorted by start with
// ties left in generation order.
std::vector<Act> RandomActs(std::mt19937_64& rng, int n) {
  std::vector<Act> acts;
  for (int i = 0; i < n; ++i) {
    const auto start = static_cast<int64_t>(rng() % 60);
    const int64_t len = static_cast<int64_t>(rng() % 12) - (rng() % 6 == 0 ? 3 : 0);
    acts.push_back({start, start + len, static_cast<int64_t>(rng() % 4)});
  }
  std::stable_sort(acts.begin(), acts.end(), [](const Act& a, const Act& b) { return a.start_ns < b.start_ns; });
  return acts;
}

// Brute force over 1 ns cells: the covered cells of `span`, its uncovered runs as gaps, each ended by
// the first non-empty activity starting where the run ends (none for a run that reaches the span's end).
ActivityUnion BruteForce(const std::vector<Act>& acts, TimeWindow span) {
  ActivityUnion out;
  out.span = span;
  std::vector<uint8_t> covered(static_cast<size_t>(std::max<int64_t>(span.dur_ns(), 0)), 0);
  for (const Act& a : acts) {
    for (int64_t t = a.start_ns; t < a.end_ns; ++t) covered[static_cast<size_t>(t - span.start_ns)] = 1;
  }
  for (int64_t t = span.start_ns; t < span.end_ns;) {
    if (covered[static_cast<size_t>(t - span.start_ns)]) {
      ++out.active_ns;
      ++t;
      continue;
    }
    IdleGap& gap = out.gaps.emplace_back();
    gap.start_ns = t;
    while (t < span.end_ns && !covered[static_cast<size_t>(t - span.start_ns)]) ++t;
    gap.dur_ns = t - gap.start_ns;
    const auto next = std::find_if(acts.begin(), acts.end(), [&](const Act& a) { return a.start_ns == t && a.end_ns > t; });
    if (next != acts.end()) {
      gap.next_stream = StreamId(next->stream);
      gap.next_correlation = CorrelationId(next - acts.begin());
    } else {
      out.trailing_gap = true;
    }
  }
  return out;
}

ActivityUnion Sweep(const std::vector<Act>& acts, std::optional<TimeWindow> window) {
  ActivitySweep sweep = window ? ActivitySweep(*window) : ActivitySweep();
  for (size_t i = 0; i < acts.size(); ++i) {
    const NextWork next{StreamId(acts[i].stream), CorrelationId(static_cast<int64_t>(i))};
    sweep.Add(acts[i].start_ns, acts[i].end_ns, [&] { return next; });
  }
  return std::move(sweep).Finish();
}

void ExpectSame(const ActivityUnion& got, const ActivityUnion& want) {
  ASSERT_EQ(got.span, want.span);
  ASSERT_EQ(got.active_ns, want.active_ns);
  ASSERT_EQ(got.gaps, want.gaps);
  ASSERT_EQ(got.trailing_gap, want.trailing_gap);
}

TEST(ActivitySweepTest, OwnSpanMatchesBruteForceOnThousandsOfRandomInputs) {
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 4000; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const std::vector<Act> acts = RandomActs(rng, 1 + static_cast<int>(rng() % 10));
    int64_t end_ns = acts.front().start_ns;
    for (const Act& a : acts) end_ns = std::max(end_ns, a.end_ns);
    ExpectSame(Sweep(acts, std::nullopt), BruteForce(acts, {acts.front().start_ns, end_ns}));
  }
}

TEST(ActivitySweepTest, WindowMatchesBruteForceOnThousandsOfRandomInputs) {
  std::mt19937_64 rng(4);
  for (int trial = 0; trial < 4000; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const auto start = static_cast<int64_t>(rng() % 50);
    const TimeWindow window{start, start + static_cast<int64_t>(rng() % 30)};
    // Clipped to the window as TimelineAnalyzer clips them; clipping keeps the order by start.
    std::vector<Act> acts;
    for (Act a : RandomActs(rng, static_cast<int>(rng() % 10))) {
      a.start_ns = std::max(a.start_ns, window.start_ns);
      a.end_ns = std::min(a.end_ns, window.end_ns);
      if (a.start_ns < window.end_ns) acts.push_back(a);
    }
    ExpectSame(Sweep(acts, window), BruteForce(acts, window));
  }
}

TEST(ActivitySweepTest, TimelineAnalyzerWindowsAgreeWithBruteForce) {
  // The analyzer selects and clips each window's activity (long kernels from before it included)
  // before sweeping; the other device's kernels must not count.
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 1000; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    Trace trace;
    std::vector<Act> mine;
    for (const Act& a : RandomActs(rng, 1 + static_cast<int>(rng() % 10))) {
      const int32_t device = rng() % 4 == 0 ? 1 : 0;
      trace.kernels.push_back(testing::Kernel(a.start_ns, a.end_ns, a.stream, -1, device));
      if (device == 0) mine.push_back(a);
    }
    const auto start = static_cast<int64_t>(rng() % 50);
    const TimeWindow window{start, start + static_cast<int64_t>(rng() % 30)};
    std::vector<Act> clipped;
    for (Act a : mine) {
      a.start_ns = std::max(a.start_ns, window.start_ns);
      a.end_ns = std::min(a.end_ns, window.end_ns);
      if (a.end_ns > a.start_ns) clipped.push_back(a);
    }
    const TimelineMetrics m = TimelineAnalyzer(trace, DeviceId(0)).Compute(window);
    const ActivityUnion want = BruteForce(clipped, window);
    ASSERT_EQ(m.active_ns, want.active_ns);
    ASSERT_EQ(m.gaps.size(), want.gaps.size());
    for (size_t i = 0; i < m.gaps.size(); ++i) {
      ASSERT_EQ(m.gaps[i].start_ns, want.gaps[i].start_ns);
      ASSERT_EQ(m.gaps[i].dur_ns, want.gaps[i].dur_ns);
      ASSERT_EQ(m.gaps[i].next_stream, want.gaps[i].next_stream);
    }
  }
}

TEST(ActivitySweepTest, NothingToSweep) {
  EXPECT_TRUE(ActivitySweep().Finish().gaps.empty());
  EXPECT_TRUE(ActivitySweep().Finish().empty());
  const ActivityUnion idle = ActivitySweep(TimeWindow{10, 30}).Finish();
  ASSERT_EQ(idle.gaps.size(), 1u);
  EXPECT_EQ(idle.gaps[0].dur_ns, 20);
  EXPECT_TRUE(idle.trailing_gap);
}

TEST(ActivitySweepTest, NextWorkIsAskedOnlyForWorkThatEndsAGap) {
  ActivitySweep sweep;
  int asked = 0;
  const auto next = [&] {
    ++asked;
    return NextWork{StreamId(1), CorrelationId(5), true};
  };
  sweep.Add(0, 10, next);
  sweep.Add(5, 20, next);
  sweep.Add(30, 40, next);
  sweep.Add(30, 35, next);
  const ActivityUnion u = std::move(sweep).Finish();
  EXPECT_EQ(asked, 1);
  ASSERT_EQ(u.gaps.size(), 1u);
  EXPECT_TRUE(u.gaps[0].next_from_graph);
  EXPECT_FALSE(u.trailing_gap);
}

TEST(ActivitySweepTest, ClassifyGapsBlamesNoWorkForTheTrailingGap) {
  // Kernel [0,100), its successor [170,200) launched late; the trailing gap would be "late" too if
  // it were judged by a correlation id, since the invalid id has a launch call here.
  Trace t;
  t.api_calls = {testing::LaunchCall(150, 160, 2), testing::LaunchCall(250, 260, -1)};
  ActivitySweep sweep(TimeWindow{0, 300});
  sweep.Add(0, 100, [] { return NextWork{StreamId(7), CorrelationId(1)}; });
  sweep.Add(170, 200, [] { return NextWork{StreamId(7), CorrelationId(2)}; });
  ActivityUnion u = std::move(sweep).Finish();
  ClassifyGaps(GapClassifier(t, DeviceId(0)), u);
  ASSERT_EQ(u.gaps.size(), 2u);
  EXPECT_EQ(u.gaps[0].cause, GapCause::kHostLaunchLate);
  EXPECT_EQ(u.gaps[1].cause, GapCause::kOther);
}

}  // namespace
}  // namespace nimble::analysis
