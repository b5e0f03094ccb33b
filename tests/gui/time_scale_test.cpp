// TimeScale and PixelGrid: the mapping, zoom about a point, pan, clamping, and the exact agreement of
// PixelOf and PixelStartNs that the draw list's coverage guarantee rests on.
#include "nimble/gui/time_scale.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace nimble::gui {
namespace {

TEST(TimeScaleTest, MapsBothWays) {
  const TimeScale scale(1000, 10, 500);
  EXPECT_DOUBLE_EQ(scale.ToPx(1000), 0);
  EXPECT_DOUBLE_EQ(scale.ToPx(2000), 100);
  EXPECT_DOUBLE_EQ(scale.ToNs(250), 3500);
  EXPECT_DOUBLE_EQ(scale.right_ns(), 6000);
  EXPECT_DOUBLE_EQ(scale.span_ns(), 5000);
}

TEST(TimeScaleTest, ZoomKeepsTheAnchorStill) {
  TimeScale scale(0, 100, 1000);
  const double anchor_ns = scale.ToNs(300);
  scale.ZoomAbout(300, 0.5);
  EXPECT_DOUBLE_EQ(scale.ns_per_px(), 50);
  EXPECT_NEAR(scale.ToNs(300), anchor_ns, 1e-9);
  scale.ZoomAbout(300, 4);
  EXPECT_DOUBLE_EQ(scale.ns_per_px(), 200);
  EXPECT_NEAR(scale.ToNs(300), anchor_ns, 1e-9);
}

TEST(TimeScaleTest, ZoomStopsAtTheFinestScale) {
  TimeScale scale(0, 1, 100);
  for (int i = 0; i < 100; ++i) scale.ZoomAbout(50, 0.5);
  EXPECT_DOUBLE_EQ(scale.ns_per_px(), TimeScale::kMinNsPerPx);
}

TEST(TimeScaleTest, PanMovesByPixels) {
  TimeScale scale(0, 20, 100);
  scale.Pan(10);
  EXPECT_DOUBLE_EQ(scale.left_ns(), 200);
  scale.Pan(-25);
  EXPECT_DOUBLE_EQ(scale.left_ns(), -300);
}

TEST(TimeScaleTest, FitShowsTheRange) {
  TimeScale scale(0, 1, 400);
  scale.Fit(1000, 5000);
  EXPECT_DOUBLE_EQ(scale.left_ns(), 1000);
  EXPECT_DOUBLE_EQ(scale.right_ns(), 5000);
  scale.SetWidth(800);  // a wider window shows more, at the same scale
  EXPECT_DOUBLE_EQ(scale.right_ns(), 9000);
}

TEST(TimeScaleTest, ClampKeepsTheViewCentreOverTheData) {
  TimeScale scale(-5000, 10, 100);  // centre at -4500: left of the data
  scale.Clamp(0, 10'000);
  EXPECT_DOUBLE_EQ(scale.left_ns(), -500);  // centre on the data's first ns
  scale.Pan(10'000);
  scale.Clamp(0, 10'000);
  EXPECT_DOUBLE_EQ(scale.left_ns() + scale.span_ns() / 2, 10'000);
  // A range a little wider than the data stays as asked.
  scale.Fit(-300, 10'400);
  scale.Clamp(0, 10'000);
  EXPECT_DOUBLE_EQ(scale.left_ns(), -300);
  EXPECT_NEAR(scale.right_ns(), 10'400, 1e-6);
  // Zoomed out far past the data: limited to twice it, the centre kept.
  scale.ZoomAbout(50, 1000);
  scale.Clamp(0, 10'000);
  EXPECT_NEAR(scale.span_ns(), 20'000, 1e-6);
  EXPECT_NEAR(scale.left_ns() + scale.span_ns() / 2, 5050, 1e-6);
}

TEST(PixelGridTest, PixelOfAndPixelStartAgreeExactly) {
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 20000; ++trial) {
    PixelGrid grid;
    grid.ns_per_px = std::pow(10.0, std::uniform_real_distribution<double>(-2, 9)(rng));
    grid.left_ns = std::uniform_real_distribution<double>(-1e12, 1e12)(rng);
    grid.width_px = 1920;
    const int64_t p = std::uniform_int_distribution<int64_t>(-10, 2000)(rng);
    const int64_t t = grid.PixelStartNs(p);
    ASSERT_GE(grid.PixelOf(t), p);
    ASSERT_LT(grid.PixelOf(t - 1), p);
  }
}

}  // namespace
}  // namespace nimble::gui
