// MarkerPairer against a brute-force reference on random marker streams: ranges that overlap,
// nest and interleave across threads, with some starts lost (capture began late) and some ends lost
// (capture stopped early). Every range whose start and end were both seen must come out exactly.
#include "nimble/collector/marker_pairer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace nimble::collector {
namespace {

TEST(MarkerPairerTest, PairsByIdAndCountsStrays) {
  MarkerPairer pairer;
  pairer.Start(1, 100, ThreadId(5), StringId(0), StringId());
  EXPECT_FALSE(pairer.End(2, 150).has_value());
  const auto range = pairer.End(1, 200);
  ASSERT_TRUE(range.has_value());
  EXPECT_EQ(range->start_ns, 100);
  EXPECT_EQ(range->end_ns, 200);
  EXPECT_EQ(range->thread, ThreadId(5));
  EXPECT_EQ(pairer.unmatched_ends(), 1);
  pairer.Start(3, 300, ThreadId(5), StringId(0), StringId());
  pairer.Start(3, 310, ThreadId(5), StringId(0), StringId());  // reused id: the first start is lost
  EXPECT_EQ(pairer.unmatched_starts(), 1);
  EXPECT_EQ(pairer.CloseOpen(), 1);
  EXPECT_EQ(pairer.unmatched_starts(), 2);
  EXPECT_EQ(pairer.open(), 0u);
}

TEST(MarkerPairerTest, EndBeforeStartIsRejected) {
  MarkerPairer pairer;
  pairer.Start(1, 500, ThreadId(1), StringId(0), StringId());
  EXPECT_FALSE(pairer.End(1, 400).has_value());
  EXPECT_EQ(pairer.unmatched_ends(), 1);
  EXPECT_EQ(pairer.open(), 0u);
}

struct Event {
  int64_t ts;
  bool start;
  uint32_t id;
};

TEST(MarkerPairerTest, MatchesReferenceOnRandomMarkerStreams) {
  std::mt19937 rng(20261121);
  for (int trial = 0; trial < 300; ++trial) {
    const int n = std::uniform_int_distribution<int>(0, 40)(rng);
    std::vector<NvtxRange> truth(static_cast<size_t>(n));
    std::vector<Event> events;
    std::vector<bool> start_seen(static_cast<size_t>(n)), end_seen(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      const int64_t a = std::uniform_int_distribution<int64_t>(1, 1000)(rng);
      const int64_t len = std::uniform_int_distribution<int64_t>(0, 300)(rng);
      auto& r = truth[static_cast<size_t>(i)];
      r.start_ns = a;
      r.end_ns = a + len;
      r.thread = ThreadId(i % 3);
      r.text = StringId(i);
      start_seen[static_cast<size_t>(i)] = std::bernoulli_distribution(0.85)(rng);
      end_seen[static_cast<size_t>(i)] = std::bernoulli_distribution(0.85)(rng);
      if (start_seen[static_cast<size_t>(i)]) events.push_back({a, true, static_cast<uint32_t>(i)});
      if (end_seen[static_cast<size_t>(i)]) events.push_back({a + len, false, static_cast<uint32_t>(i)});
    }
    // CUPTI delivers markers in time order; a start sorts before an end at the same instant.
    std::stable_sort(events.begin(), events.end(), [](const Event& x, const Event& y) {
      return x.ts != y.ts ? x.ts < y.ts : (x.start && !y.start);
    });
    MarkerPairer pairer;
    std::vector<NvtxRange> got;
    for (const Event& e : events) {
      const auto& r = truth[e.id];
      if (e.start) {
        pairer.Start(e.id, r.start_ns, r.thread, r.text, StringId());
      } else if (auto range = pairer.End(e.id, r.end_ns)) {
        got.push_back(*range);
      }
    }
    pairer.CloseOpen();
    std::vector<NvtxRange> want;
    int64_t lost_starts = 0, lost_ends = 0;
    for (int i = 0; i < n; ++i) {
      const bool s = start_seen[static_cast<size_t>(i)], e = end_seen[static_cast<size_t>(i)];
      if (s && e) want.push_back(truth[static_cast<size_t>(i)]);
      lost_ends += (!s && e) ? 1 : 0;
      lost_starts += (s && !e) ? 1 : 0;
    }
    const auto by_text = [](const NvtxRange& x, const NvtxRange& y) { return x.text < y.text; };
    std::sort(got.begin(), got.end(), by_text);
    std::sort(want.begin(), want.end(), by_text);
    ASSERT_EQ(got, want) << "trial " << trial;
    EXPECT_EQ(pairer.unmatched_ends(), lost_ends) << "trial " << trial;
    EXPECT_EQ(pairer.unmatched_starts(), lost_starts) << "trial " << trial;
  }
}

}  // namespace
}  // namespace nimble::collector
