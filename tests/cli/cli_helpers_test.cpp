#include <gtest/gtest.h>

#include "format.h"
#include "nimble/analysis/timeline.h"

namespace nimble::cli {
namespace {

TEST(FormatTest, DurationsPickAUnit) {
  EXPECT_EQ(FormatDuration(950), "950 ns");
  EXPECT_EQ(FormatDuration(12'345), "12.3 us");
  EXPECT_EQ(FormatDuration(4'560'000), "4.56 ms");
  EXPECT_EQ(FormatDuration(123'000'000'000), "123 s");
  EXPECT_EQ(FormatDuration(-2'000), "-2.00 us");
  EXPECT_EQ(FormatPercent(0.4567), "45.7%");
  EXPECT_EQ(FormatFactor(1.234), "1.23x");
}

Trace WithRanges(std::initializer_list<std::tuple<const char*, int64_t, int64_t>> ranges) {
  Trace t;
  for (auto [text, s, e] : ranges) {
    NvtxRange r;
    r.text = t.strings.Intern(text), r.start_ns = s, r.end_ns = e;
    t.ranges.push_back(r);
  }
  return t;
}

TEST(IterationRangeTest, PicksTheMostRepeatedNonOverlappingRange) {
  EXPECT_EQ(analysis::DetectIterationRange(WithRanges({{"iter", 0, 10}, {"setup", 0, 100}, {"iter", 20, 30}, {"iter", 40, 50}})),
            "iter");
  // "layer" repeats more often but its ranges overlap (nested): not an iteration marker.
  EXPECT_EQ(analysis::DetectIterationRange(WithRanges({{"step", 0, 50}, {"step", 60, 90}, {"layer", 0, 40},
                                             {"layer", 10, 20}, {"layer", 30, 35}})),
            "step");
  EXPECT_EQ(analysis::DetectIterationRange(WithRanges({{"once", 0, 10}})), "");
  EXPECT_EQ(analysis::DetectIterationRange(Trace{}), "");
}

}  // namespace
}  // namespace nimble::cli
