// The iteration the viewer opens on (the median one, against brute force), and `--iteration K` out of
// range: clamped, with a warning that names how many iterations there are.
#include "nimble/gui/iteration_detector.h"

#include <gtest/gtest.h>

#include <random>

namespace nimble::gui {
namespace {

using Windows = std::vector<std::pair<int64_t, int64_t>>;

TEST(IterationDetectorTest, OpensOnTheMedianIteration) {
  EXPECT_EQ(MedianIteration(Windows{}), -1);
  EXPECT_EQ(MedianIteration(Windows{{0, 10}}), 0);
  // The first iteration is slow (warm-up), one is an outlier: the typical one is picked.
  EXPECT_EQ(MedianIteration(Windows{{0, 90}, {100, 130}, {200, 220}, {300, 325}, {400, 900}}), 1);
  // Equal lengths: the earliest.
  EXPECT_EQ(MedianIteration(Windows{{0, 10}, {10, 20}, {20, 30}}), 0);
}

TEST(IterationDetectorTest, MedianIterationAgreesWithBruteForce) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 500; ++trial) {
    Windows windows;
    int64_t t = 0;
    const int n = 1 + static_cast<int>(rng() % 12);
    for (int i = 0; i < n; ++i) {
      const int64_t length = 1 + static_cast<int64_t>(rng() % 6);
      windows.emplace_back(t, t + length);
      t += length + static_cast<int64_t>(rng() % 3);
    }
    const int picked = MedianIteration(windows);
    ASSERT_GE(picked, 0);
    const int64_t length = windows[static_cast<size_t>(picked)].second - windows[static_cast<size_t>(picked)].first;
    int shorter = 0;
    int longer = 0;
    int earlier_equal = 0;
    for (int i = 0; i < n; ++i) {
      const int64_t l = windows[static_cast<size_t>(i)].second - windows[static_cast<size_t>(i)].first;
      shorter += l < length;
      longer += l > length;
      earlier_equal += l == length && i < picked;
    }
    // The upper median: n / 2 windows at most are shorter, and the rest are not all longer.
    EXPECT_LE(shorter, n / 2);
    EXPECT_LE(longer, n - n / 2 - 1);
    EXPECT_EQ(earlier_equal, 0);
  }
}

TEST(IterationDetectorTest, OutOfRangeIterationsAreClampedWithAWarning) {
  EXPECT_EQ(PickIteration(5, 10).index, 4);
  EXPECT_EQ(PickIteration(5, 10).warning, "");
  EXPECT_EQ(PickIteration(10, 10).index, 9);
  const IterationPick high = PickIteration(99, 10);
  EXPECT_EQ(high.index, 9);
  EXPECT_EQ(high.warning, "--iteration 99: the run has 10 iterations (1 to 10); showing iteration 10");
  EXPECT_EQ(PickIteration(0, 3).index, 0);
  EXPECT_NE(PickIteration(-2, 3).warning.find("3 iterations"), std::string::npos);
  EXPECT_NE(PickIteration(2, 1).warning.find("1 iteration "), std::string::npos);
  const IterationPick none = PickIteration(3, 0);
  EXPECT_EQ(none.index, -1);
  EXPECT_NE(none.warning.find("no iterations"), std::string::npos);
}

}  // namespace
}  // namespace nimble::gui
