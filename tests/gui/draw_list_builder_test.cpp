// The level-of-detail draw list against a naive per-pixel rasterisation on many random rows and zooms:
// coverage must be exact, spans must partition the visible items in order, wide items must stand alone,
// and the list must stay O(pixels) however many items there are.
#include "nimble/gui/draw_list_builder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace nimble::gui {
namespace {

// Random sorted items: disjoint (a stream), or overlapping and nested (`overlapping`), with durations and
// gaps over several orders of magnitude and some empty items.
RowItems RandomRow(std::mt19937_64& rng, size_t n, bool overlapping) {
  RowItems row;
  std::uniform_int_distribution<int> scale(0, 6);
  auto pow10 = [](int e) { int64_t v = 1; while (e-- > 0) v *= 10; return v; };
  int64_t t = std::uniform_int_distribution<int64_t>(-1000, 1000)(rng);
  for (size_t i = 0; i < n; ++i) {
    const int64_t dur = std::uniform_int_distribution<int64_t>(0, pow10(scale(rng)))(rng);
    const int64_t gap = std::uniform_int_distribution<int64_t>(0, pow10(scale(rng)))(rng);
    row.Add(t, t + dur, static_cast<int32_t>(i % 7), ItemRef(ItemKind::kKernel, static_cast<uint32_t>(i)));
    t += overlapping ? std::uniform_int_distribution<int64_t>(0, dur + gap)(rng) : dur + gap;
  }
  row.Finish();
  return row;
}

// Pixels [0, width) covered by some item, computed item by item.
std::vector<uint8_t> NaiveCoverage(const RowItems& row, const PixelGrid& grid) {
  std::vector<uint8_t> covered(static_cast<size_t>(grid.width_px), 0);
  for (size_t i = 0; i < row.size(); ++i) {
    const int64_t first = std::max<int64_t>(grid.PixelOf(row.start_ns(i)), 0);
    const int64_t last = std::min<int64_t>(grid.PixelOf(row.effective_end_ns(i) - 1), grid.width_px - 1);
    for (int64_t p = first; p <= last; ++p) covered[static_cast<size_t>(p)] = 1;
  }
  return covered;
}

std::vector<uint8_t> SpanCoverage(const std::vector<DrawSpan>& spans, const PixelGrid& grid) {
  std::vector<uint8_t> covered(static_cast<size_t>(grid.width_px), 0);
  for (const DrawSpan& s : spans) {
    const int64_t first = std::max<int64_t>(DrawListBuilder::FirstPixel(s, grid), 0);
    const int64_t last = std::min<int64_t>(DrawListBuilder::LastPixel(s, grid), grid.width_px - 1);
    for (int64_t p = first; p <= last; ++p) covered[static_cast<size_t>(p)] = 1;
  }
  return covered;
}

PixelGrid RandomGrid(std::mt19937_64& rng, const RowItems& row) {
  const int64_t first = row.start_ns(0);
  const int64_t last = row.max_end_ns(row.size() - 1);
  PixelGrid grid;
  grid.width_px = std::uniform_int_distribution<int32_t>(1, 400)(rng);
  // From deep zoom (many px per ns) to far beyond the whole row.
  grid.ns_per_px = std::pow(10.0, std::uniform_real_distribution<double>(-1.5, 7)(rng));
  grid.left_ns = std::uniform_real_distribution<double>(static_cast<double>(first) - grid.ns_per_px * grid.width_px,
                                                        static_cast<double>(last))(rng);
  return grid;
}

void CheckDrawList(const RowItems& row, const PixelGrid& grid, const std::vector<DrawSpan>& spans, bool disjoint) {
  ASSERT_EQ(SpanCoverage(spans, grid), NaiveCoverage(row, grid));
  for (size_t s = 0; s < spans.size(); ++s) {
    const DrawSpan& span = spans[s];
    ASSERT_GE(span.count, 1u);
    if (s > 0) {
      ASSERT_EQ(span.first, spans[s - 1].first + spans[s - 1].count) << "spans skip or repeat items";
    }
    ASSERT_EQ(span.start_ns, row.start_ns(span.first));
    int64_t hull_end = INT64_MIN;
    for (uint32_t i = span.first; i < span.first + span.count; ++i) hull_end = std::max(hull_end, row.effective_end_ns(i));
    if (disjoint) {
      ASSERT_EQ(span.end_ns, hull_end);
    } else {
      ASSERT_GE(span.end_ns, hull_end);
    }
  }
  if (!disjoint) return;
  // Every item of 3 or more pixels is painted on its own; the list stays within the pixels.
  for (const DrawSpan& span : spans) {
    if (span.count == 1) continue;
    for (uint32_t i = span.first; i < span.first + span.count; ++i) {
      const int64_t px = grid.PixelOf(row.effective_end_ns(i) - 1) - grid.PixelOf(row.start_ns(i)) + 1;
      ASSERT_LT(px, 3) << "a wide item was merged";
    }
  }
  ASSERT_LE(spans.size(), static_cast<size_t>(grid.width_px) + 2);
}

TEST(DrawListBuilderTest, MatchesNaiveRasterisationOnRandomDisjointRows) {
  std::mt19937_64 rng(1);
  const DrawListBuilder builder;
  std::vector<DrawSpan> spans;
  int through_levels = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const RowItems row = RandomRow(rng, std::uniform_int_distribution<size_t>(1, 300)(rng), false);
    const PixelGrid grid = RandomGrid(rng, row);
    builder.Build(row, grid, spans);
    through_levels += row.levels().CoarsestWithin(grid.ns_per_px) >= 0;
    SCOPED_TRACE("trial " + std::to_string(trial));
    CheckDrawList(row, grid, spans, true);
  }
  EXPECT_GT(through_levels, 1000);  // most zooms start from a precomputed level, not the items
}

TEST(DrawListBuilderTest, MatchesNaiveRasterisationOnRandomOverlappingRows) {
  std::mt19937_64 rng(2);
  const DrawListBuilder builder;
  std::vector<DrawSpan> spans;
  for (int trial = 0; trial < 3000; ++trial) {
    const RowItems row = RandomRow(rng, std::uniform_int_distribution<size_t>(1, 300)(rng), true);
    const PixelGrid grid = RandomGrid(rng, row);
    builder.Build(row, grid, spans);
    SCOPED_TRACE("trial " + std::to_string(trial));
    CheckDrawList(row, grid, spans, false);
  }
}

// Every kept level joins exactly the gaps shorter than its threshold, nests in the next, and halves.
TEST(LodLevelsTest, LevelsJoinShortGapsAndNest) {
  std::mt19937_64 rng(6);
  for (int trial = 0; trial < 500; ++trial) {
    const RowItems row = RandomRow(rng, std::uniform_int_distribution<size_t>(2, 400)(rng), trial % 2 == 1);
    size_t previous = row.size();
    const SpanLevel* finer = nullptr;
    for (const SpanLevel& level : row.levels().levels()) {
      SCOPED_TRACE("trial " + std::to_string(trial) + " threshold " + std::to_string(level.threshold_ns));
      ASSERT_LE(level.size() * 2, previous);
      ASSERT_EQ(level.first_item.front(), 0u);
      for (size_t s = 0; s < level.size(); ++s) {
        int64_t hull = INT64_MIN;
        for (uint32_t i = level.first_item[s]; i < level.item_end(s); ++i) {
          if (i > level.first_item[s]) {
            ASSERT_LT(row.start_ns(i) - hull, level.threshold_ns) << "unjoined short gap";
          }
          hull = std::max(hull, row.effective_end_ns(i));
        }
        ASSERT_EQ(level.start_ns[s], row.start_ns(level.first_item[s]));
        ASSERT_EQ(level.end_ns[s], hull);
        if (s > 0) {
          ASSERT_GE(level.start_ns[s] - level.end_ns[s - 1], level.threshold_ns) << "joined long gap";
        }
        if (finer != nullptr) {
          const auto [a, b] = finer->SpansOfItems(level.first_item[s], level.item_end(s));
          ASSERT_LT(a, b);
          ASSERT_EQ(finer->first_item[a], level.first_item[s]);
          ASSERT_EQ(finer->item_end(b - 1), level.item_end(s));
        }
      }
      previous = level.size();
      finer = &level;
    }
  }
}

TEST(DrawListBuilderTest, WideItemsKeepTheirIdentity) {
  RowItems row;
  row.Add(0, 1000, 1, ItemRef(ItemKind::kKernel, 0));       // 10 px
  row.Add(1000, 1010, 2, ItemRef(ItemKind::kKernel, 1));    // sub-pixel
  row.Add(1020, 1030, 2, ItemRef(ItemKind::kKernel, 2));    // sub-pixel, same pixel
  row.Add(1050, 1060, 2, ItemRef(ItemKind::kKernel, 3));    // sub-pixel, next pixel
  row.Add(5000, 6000, 3, ItemRef(ItemKind::kKernel, 4));    // 10 px, after empty pixels
  row.Finish();
  std::vector<DrawSpan> spans;
  DrawListBuilder().Build(row, PixelGrid{0, 100, 100}, spans);
  ASSERT_EQ(spans.size(), 3u);
  EXPECT_EQ(spans[0].first, 0u);
  EXPECT_EQ(spans[0].count, 1u);
  EXPECT_EQ(spans[1].first, 1u);
  EXPECT_EQ(spans[1].count, 3u);
  EXPECT_EQ(spans[1].end_ns, 1060);
  EXPECT_EQ(spans[2].first, 4u);
}

TEST(DrawListBuilderTest, MillionsOfItemsCostOnlyThePixels) {
  RowItems row;
  const size_t n = 2'000'000;
  row.Reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const auto t = static_cast<int64_t>(i) * 1000;
    row.Add(t, t + 600, 0, ItemRef(ItemKind::kKernel, static_cast<uint32_t>(i)));
  }
  row.Finish();
  std::vector<DrawSpan> spans;
  const PixelGrid whole{0, 2e9 / 1000, 1000};
  DrawListBuilder().Build(row, whole, spans);
  ASSERT_EQ(spans.size(), 1u);  // every pixel busy: one run
  EXPECT_EQ(spans[0].count, n);
  const PixelGrid close{5e8, 100, 1000};  // 100 ns per px: every item wide
  DrawListBuilder().Build(row, close, spans);
  EXPECT_EQ(spans.size(), 100u);
  EXPECT_TRUE(std::all_of(spans.begin(), spans.end(), [](const DrawSpan& s) { return s.count == 1; }));
}

TEST(DrawListBuilderTest, EmptyRowOrGridGivesNothing) {
  std::vector<DrawSpan> spans{{}};
  DrawListBuilder().Build(RowItems(), PixelGrid{0, 1, 100}, spans);
  EXPECT_TRUE(spans.empty());
  RowItems row;
  row.Add(0, 10, 0, ItemRef());
  row.Finish();
  DrawListBuilder().Build(row, PixelGrid{0, 1, 0}, spans);
  EXPECT_TRUE(spans.empty());
  DrawListBuilder().Build(row, PixelGrid{100, 1, 50}, spans);  // entirely left of the view
  EXPECT_TRUE(spans.empty());
}

}  // namespace
}  // namespace nimble::gui
