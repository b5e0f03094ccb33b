#include "nimble/core/median.h"

#include <gtest/gtest.h>

#include <random>

namespace nimble {
namespace {

TEST(MedianTest, EmptyOddAndEven) {
  EXPECT_EQ(Median({}), 0);
  EXPECT_EQ(Median({7}), 7);
  EXPECT_EQ(Median({9, 1, 5}), 5);
  EXPECT_EQ(Median({4, 1, 3, 2}), 3);  // the upper middle value
}

TEST(MedianTest, MatchesASortOnRandomInputs) {
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<int64_t> v(1 + rng() % 40);
    for (auto& x : v) x = static_cast<int64_t>(rng() % 1000) - 500;
    std::vector<int64_t> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    ASSERT_EQ(Median(v), sorted[sorted.size() / 2]);
  }
}

}  // namespace
}  // namespace nimble
