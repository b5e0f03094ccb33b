#include <gtest/gtest.h>

#include "nimble/analysis/timeline.h"

namespace nimble::cli {
namespace {

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
