// The GPU busy chart's arithmetic against brute force: busy time over any range of random gap sets, and
// the per-column shares of a pixel grid, which must add up to the busy time of the whole view.
#include "nimble/gui/busy_profile.h"

#include <gtest/gtest.h>

#include <random>

namespace nimble::gui {
namespace {

struct Case {
  RowItems gaps;
  int64_t span_start = 0;
  int64_t span_end = 0;
  std::vector<bool> idle;  // per ns from 0
};

Case RandomCase(std::mt19937_64& rng) {
  Case c;
  c.span_start = static_cast<int64_t>(rng() % 50);
  int64_t t = c.span_start;
  const int n = static_cast<int>(rng() % 30);
  for (int i = 0; i < n; ++i) {
    t += 1 + static_cast<int64_t>(rng() % 20);  // busy before each gap, so gaps never touch the span start
    const int64_t length = 1 + static_cast<int64_t>(rng() % 25);
    c.gaps.Add(t, t + length, 0, ItemRef(ItemKind::kGap, static_cast<uint32_t>(i)));
    t += length;
  }
  c.gaps.Finish();
  c.span_end = t + 1 + static_cast<int64_t>(rng() % 20);
  c.idle.assign(static_cast<size_t>(c.span_end + 100), false);
  for (size_t i = 0; i < c.gaps.size(); ++i) {
    for (int64_t ns = c.gaps.start_ns(i); ns < c.gaps.end_ns(i); ++ns) c.idle[static_cast<size_t>(ns)] = true;
  }
  return c;
}

int64_t BruteBusy(const Case& c, int64_t a, int64_t b) {
  int64_t busy = 0;
  for (int64_t ns = std::max(a, c.span_start); ns < std::min(b, c.span_end); ++ns) busy += !c.idle[static_cast<size_t>(ns)];
  return busy;
}

TEST(BusyProfileTest, BusyTimeAgreesWithBruteForce) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 400; ++trial) {
    const Case c = RandomCase(rng);
    const BusyProfile profile(c.gaps, c.span_start, c.span_end);
    EXPECT_EQ(profile.BusyNs(c.gaps, c.span_start, c.span_end), BruteBusy(c, c.span_start, c.span_end));
    for (int q = 0; q < 40; ++q) {
      const auto a = static_cast<int64_t>(rng() % static_cast<uint64_t>(c.span_end + 60)) - 30;
      const int64_t b = a + static_cast<int64_t>(rng() % 80);
      ASSERT_EQ(profile.BusyNs(c.gaps, a, b), BruteBusy(c, a, b)) << "trial " << trial << " [" << a << ", " << b << ")";
    }
  }
}

TEST(BusyProfileTest, ColumnsShareTheBusyTimeOfTheView) {
  std::mt19937_64 rng(9);
  std::vector<float> columns;
  for (int trial = 0; trial < 300; ++trial) {
    const Case c = RandomCase(rng);
    const BusyProfile profile(c.gaps, c.span_start, c.span_end);
    PixelGrid grid;
    grid.left_ns = -20.0 + static_cast<double>(rng() % 40);
    grid.ns_per_px = 0.25 + static_cast<double>(rng() % 40) / 10;
    grid.width_px = 50 + static_cast<int32_t>(rng() % 300);
    const auto column_px = static_cast<int32_t>(1 + rng() % 6);
    profile.Columns(c.gaps, grid, column_px, columns);
    ASSERT_EQ(columns.size(), static_cast<size_t>((grid.width_px + column_px - 1) / column_px));
    double busy = 0;
    for (size_t i = 0; i < columns.size(); ++i) {
      const auto x = static_cast<int32_t>(i) * column_px;
      const int64_t a = grid.PixelStartNs(x);
      const int64_t b = grid.PixelStartNs(std::min(x + column_px, grid.width_px));
      ASSERT_GE(columns[i], 0.f);
      ASSERT_LE(columns[i], 1.f);
      busy += static_cast<double>(columns[i]) * static_cast<double>(b - a);
    }
    EXPECT_NEAR(busy, static_cast<double>(BruteBusy(c, grid.PixelStartNs(0), grid.PixelStartNs(grid.width_px))), 1e-3 * busy + 1e-3);
  }
}

TEST(BusyProfileTest, AnEmptyProfileIsNeverBusy) {
  const RowItems none;
  const BusyProfile profile;
  EXPECT_EQ(profile.BusyNs(none, 0, 100), 0);
  const BusyProfile all_busy(none, 10, 20);
  EXPECT_EQ(all_busy.BusyNs(none, 0, 100), 10);
  EXPECT_EQ(all_busy.BusyNs(none, 15, 16), 1);
}

}  // namespace
}  // namespace nimble::gui
