// RowItems (sorting, the prefix maximum of ends, galloping searches, hit tests), the split of a lane
// into disjoint rows, and the vertical layout, each against brute force where there is one.
#include <gtest/gtest.h>

#include <random>

#include "nimble/gui/lane_layout.h"
#include "nimble/gui/lane_set.h"
#include "nimble/gui/row_items.h"

namespace nimble::gui {
namespace {

RowItems RandomItems(std::mt19937_64& rng, size_t n) {
  RowItems row;
  for (size_t i = 0; i < n; ++i) {
    const int64_t start = std::uniform_int_distribution<int64_t>(0, 10'000)(rng);
    const int64_t dur = std::uniform_int_distribution<int64_t>(0, 800)(rng);
    row.Add(start, start + dur, 0, ItemRef(ItemKind::kRange, static_cast<uint32_t>(i)));
  }
  return row;
}

TEST(RowItemsTest, FinishSortsAndSearchesMatchBruteForce) {
  std::mt19937_64 rng(4);
  for (int trial = 0; trial < 300; ++trial) {
    RowItems row = RandomItems(rng, std::uniform_int_distribution<size_t>(1, 200)(rng));
    row.Finish();
    for (size_t i = 1; i < row.size(); ++i) ASSERT_LE(row.start_ns(i - 1), row.start_ns(i));
    for (int q = 0; q < 50; ++q) {
      const int64_t t = std::uniform_int_distribution<int64_t>(-100, 11'000)(rng);
      const size_t from = std::uniform_int_distribution<size_t>(0, row.size())(rng);
      size_t expect_start = from;
      while (expect_start < row.size() && row.start_ns(expect_start) < t) ++expect_start;
      ASSERT_EQ(row.FirstStartingAtOrAfter(from, t), expect_start);
      size_t expect_reach = 0;
      int64_t max_end = INT64_MIN;
      while (expect_reach < row.size() && (max_end = std::max(max_end, row.effective_end_ns(expect_reach))) <= t) {
        ++expect_reach;
      }
      ASSERT_EQ(row.FirstReaching(t), expect_reach);
    }
  }
}

TEST(RowItemsTest, FindNearPrefersTheInnermostItemUnderTheCursor) {
  RowItems row;
  row.Add(0, 1000, 0, ItemRef(ItemKind::kRange, 0));
  row.Add(100, 200, 0, ItemRef(ItemKind::kRange, 1));
  row.Add(2000, 2100, 0, ItemRef(ItemKind::kRange, 2));
  row.Finish();
  EXPECT_EQ(row.FindNear(150, 0), 1);
  EXPECT_EQ(row.FindNear(500, 0), 0);
  EXPECT_EQ(row.FindNear(1500, 0), -1);
  EXPECT_EQ(row.FindNear(1950, 60), 2);
  EXPECT_TRUE(row.has_overlaps());
}

TEST(LaneSetTest, SplitGivesDisjointRowsFirstFit) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    RowItems items = RandomItems(rng, std::uniform_int_distribution<size_t>(1, 100)(rng));
    const size_t n = items.size();
    const std::vector<RowItems> rows = SplitIntoDisjointRows(std::move(items));
    size_t total = 0;
    for (const RowItems& row : rows) {
      total += row.size();
      for (size_t i = 1; i < row.size(); ++i) ASSERT_GE(row.start_ns(i), row.effective_end_ns(i - 1));
      ASSERT_FALSE(row.has_overlaps());
    }
    ASSERT_EQ(total, n);
  }
}

TEST(LaneSetTest, OrdersLanesGpuThenHost) {
  LaneSet set;
  set.Staging({LaneKind::kHostApi, 9, -1}).Add(0, 1, 0, ItemRef());
  set.Staging({LaneKind::kStream, 1, 20}).Add(0, 1, 0, ItemRef());
  set.Staging({LaneKind::kHostRanges, 9, -1}).Add(0, 1, 0, ItemRef());
  set.Staging({LaneKind::kStream, 0, 30}).Add(0, 1, 0, ItemRef());
  set.Staging({LaneKind::kStream, 0, 7}).Add(0, 1, 0, ItemRef());
  const std::vector<Lane> lanes = set.Finish();
  ASSERT_EQ(lanes.size(), 5u);
  EXPECT_EQ(lanes[0].Title(), "GPU 0  stream 7");
  EXPECT_EQ(lanes[1].Title(), "GPU 0  stream 30");
  EXPECT_EQ(lanes[2].Title(), "GPU 1  stream 20");
  EXPECT_EQ(lanes[3].Title(), "Thread 9  NVTX");
  EXPECT_EQ(lanes[4].Title(), "Thread 9  CUDA API");
}

TEST(LaneLayoutTest, RowsAreContiguousAndFoundByY) {
  RunTimeline a;
  a.lanes.resize(3);
  a.lanes[0].kind = LaneKind::kDeviceIdle;
  a.lanes[0].rows.resize(1);
  a.lanes[1].kind = LaneKind::kStream;
  a.lanes[1].rows.resize(2);
  a.lanes[2].kind = LaneKind::kHostApi;  // no rows: still shown
  RunTimeline b = a;
  const RunTimeline* runs[] = {&a, &b};
  LaneLayout layout;
  const LayoutHeights h;
  layout.Build(runs, true, h);
  EXPECT_EQ(layout.lane_count(), 6u);
  const int32_t per_run = h.header_px + h.idle_px + 2 * h.gpu_row_px + h.host_row_px;
  EXPECT_EQ(layout.height_px(), 2 * per_run);
  int32_t y = 0;
  for (const LayoutRow& row : layout.rows()) {
    EXPECT_EQ(row.y_px, y);
    for (int32_t dy : {0, row.height_px - 1}) EXPECT_EQ(layout.RowAt(row.y_px + dy), &row);
    y += row.height_px;
  }
  EXPECT_EQ(layout.RowAt(-1), nullptr);
  EXPECT_EQ(layout.RowAt(y), nullptr);
  const LayoutRow* second_stream_row = layout.Find(1, 1, 1);
  ASSERT_NE(second_stream_row, nullptr);
  EXPECT_EQ(second_stream_row->y_px, per_run + h.header_px + h.idle_px + h.gpu_row_px);
  EXPECT_TRUE(second_stream_row->last_of_lane);
  const auto [first, last] = layout.Visible(h.header_px, h.header_px + h.idle_px + 1);
  EXPECT_EQ(first, 1u);
  EXPECT_EQ(last, 3u);
}

}  // namespace
}  // namespace nimble::gui
