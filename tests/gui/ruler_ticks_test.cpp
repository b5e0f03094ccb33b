// The ruler: 1-2-5 steps, labels in a unit that suits the times shown, no crowding at any zoom.
#include "nimble/gui/ruler_ticks.h"

#include <gtest/gtest.h>

#include <cmath>

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

}  // namespace
}  // namespace nimble::gui
