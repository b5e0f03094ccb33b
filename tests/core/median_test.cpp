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

TEST(MedianIndexTest, EmptyOddEvenAndTies) {
  EXPECT_EQ(MedianIndex({}), std::nullopt);
  const std::vector<int64_t> one = {7}, odd = {30, 10, 20}, even = {4, 1, 3, 2}, ties = {5, 5, 5, 5};
  EXPECT_EQ(MedianIndex(one), 0u);
  EXPECT_EQ(MedianIndex(odd), 2u);
  EXPECT_EQ(MedianIndex(even), 2u);  // the upper middle key, 3
  EXPECT_EQ(MedianIndex(ties), 2u);  // equal keys keep their order: position 2 of 4
}

// Against a stable sort of the positions by key, on inputs with many equal keys.
TEST(MedianIndexTest, MatchesAStableSortOnRandomInputs) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 500; ++trial) {
    std::vector<int64_t> keys(1 + rng() % 30);
    for (auto& k : keys) k = static_cast<int64_t>(rng() % 8);
    std::vector<size_t> order(keys.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return keys[a] < keys[b]; });
    const std::optional<size_t> index = MedianIndex(keys);
    ASSERT_EQ(index, order[order.size() / 2]) << "trial " << trial;
    ASSERT_EQ(keys[*index], Median(keys));
  }
}

}  // namespace
}  // namespace nimble
