// The ruler: 1-2-5 steps, labels in a unit that suits the times shown, no crowding at any zoom, and
// every label inside the ruler (the last one included).
#include "nimble/gui/ruler_ticks.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace nimble::gui {
namespace {

TEST(RulerTicksTest, NiceStepsAreOneTwoFive) {
  EXPECT_EQ(NiceStepNs(0.3), 1);
  EXPECT_EQ(NiceStepNs(1), 1);
  EXPECT_EQ(NiceStepNs(1.5), 2);
  EXPECT_EQ(NiceStepNs(3), 5);
  EXPECT_EQ(NiceStepNs(7), 10);
  EXPECT_EQ(NiceStepNs(120), 200);
  EXPECT_EQ(NiceStepNs(4'100'000), 5'000'000);
}

TEST(RulerTicksTest, LabelsUseTheUnitOfTheTimesShown) {
  EXPECT_EQ(FormatTick(0, 1000, 5000), "0");
  EXPECT_EQ(FormatTick(500, 100, 900), "500 ns");
  EXPECT_EQ(FormatTick(2'000, 1'000, 5'000), "2 µs");
  EXPECT_EQ(FormatTick(1'500'000, 500'000, 2'000'000), "1.5 ms");
  EXPECT_EQ(FormatTick(-20'000, 10'000, 40'000), "-20 µs");
  EXPECT_EQ(FormatTick(3'200'500'000, 500'000, 3.3e9), "3.2005 s");
}

TEST(RulerTicksTest, DurationsHaveThreeSignificantDigits) {
  EXPECT_EQ(FormatDuration(0), "0 ns");
  EXPECT_EQ(FormatDuration(812), "812 ns");
  EXPECT_EQ(FormatDuration(12'345), "12.3 µs");
  EXPECT_EQ(FormatDuration(1'500'000), "1.50 ms");
  EXPECT_EQ(FormatDuration(2'410'000'000), "2.41 s");
  EXPECT_EQ(FormatDuration(-3'000), "-3.00 µs");
}

TEST(RulerTicksTest, FarFromZeroLabelsAreOffsetsFromTheFirst) {
  const TimeScale scale(3e9, 200, 1000);  // 3 s in, 200 µs across
  const RulerTicks ticks = ComputeTicks(scale, 90);
  std::vector<std::string> labels;
  for (const Tick& t : ticks.ticks) {
    if (t.major) labels.push_back(t.label);
  }
  ASSERT_GE(labels.size(), 3u);
  EXPECT_EQ(ticks.major_step_ns, 20'000);
  EXPECT_EQ(labels[0], "3.00000 s");
  EXPECT_EQ(labels[1], "+20 µs");
  EXPECT_EQ(labels[2], "+40 µs");
}

TEST(RulerTicksTest, MajorTicksAreSpacedAndLabelledAtEveryZoom) {
  for (double ns_per_px : {0.02, 0.7, 13.0, 900.0, 4.2e4, 1e6, 3e8}) {
    const TimeScale scale(12'345 * ns_per_px, ns_per_px, 1600);
    const RulerTicks ticks = ComputeTicks(scale, 90);
    SCOPED_TRACE(ns_per_px);
    ASSERT_GE(static_cast<double>(ticks.major_step_ns) / ns_per_px, 90 * 0.999);
    double last_major_px = -1e9;
    int majors = 0;
    for (const Tick& t : ticks.ticks) {
      EXPECT_GE(t.x_px, -0.5);
      EXPECT_LE(t.x_px, 1600.5);
      if (!t.major) {
        EXPECT_TRUE(t.label.empty());
        continue;
      }
      ++majors;
      EXPECT_FALSE(t.label.empty());
      EXPECT_GE(t.x_px - last_major_px, 89);
      last_major_px = t.x_px;
    }
    // Wide enough for several labels, never more than fit.
    EXPECT_GE(majors, 2);
    EXPECT_LE(majors, 1600 / 90 + 1);
  }
}

// About the width of the ruler's 8.5 pt font: 6.5 px a character.
double TextWidth(const std::string& text) { return 6.5 * static_cast<double>(text.size()); }

TEST(RulerTicksTest, TheLastLabelGoesLeftOfItsTickRatherThanPastTheEnd) {
  // 0 ... 2 µs over 1000 px: the 2 µs tick sits at the very end; its label must not be cut there.
  const TimeScale scale(0, 2.0, 1000);
  const RulerTicks ticks = ComputeTicks(scale, 90);
  const std::vector<PlacedLabel> labels = PlaceLabels(ticks, 1000, TextWidth);
  ASSERT_FALSE(labels.empty());
  const PlacedLabel& last = labels.back();
  EXPECT_EQ(ticks.ticks[last.tick].label, "2.0 µs");
  EXPECT_LT(last.left_px, ticks.ticks[last.tick].x_px);
  EXPECT_LE(last.left_px + last.width_px, 1000);
}

TEST(RulerTicksTest, LabelsFitInsideTheRulerAtEveryZoomAndWidth) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> unit(0, 1);
  for (int trial = 0; trial < 2000; ++trial) {
    const double width = 300 + 1700 * unit(rng);
    const double ns_per_px = std::pow(10, -2 + 10 * unit(rng));
    const double left = (unit(rng) - 0.3) * 1e4 * ns_per_px * (unit(rng) < 0.2 ? 1e5 : 1);
    const TimeScale scale(left, ns_per_px, width);
    const RulerTicks ticks = ComputeTicks(scale, 90);
    const std::vector<PlacedLabel> labels = PlaceLabels(ticks, width, TextWidth);
    SCOPED_TRACE(testing::Message() << "width " << width << " ns/px " << ns_per_px << " left " << left);
    double previous_end = -1e18;
    size_t majors = 0;
    for (const Tick& t : ticks.ticks) majors += t.major;
    for (const PlacedLabel& l : labels) {
      ASSERT_TRUE(ticks.ticks[l.tick].major);
      EXPECT_GE(l.left_px, 0);
      EXPECT_LE(l.left_px + l.width_px, width);
      EXPECT_EQ(l.width_px, TextWidth(ticks.ticks[l.tick].label));
      EXPECT_GE(l.left_px, previous_end + 3) << "labels touch";
      // Next to its own tick, never drifting to another's place.
      EXPECT_LE(std::abs(l.left_px + l.width_px / 2 - ticks.ticks[l.tick].x_px), l.width_px / 2 + 3 + 1e-9);
      previous_end = l.left_px + l.width_px;
    }
    // At most the first and the last labels can be crowded out.
    EXPECT_GE(labels.size() + 2, majors);
  }
}

}  // namespace
}  // namespace nimble::gui
