// FreedRanges (accelerate/src/freed_ranges.h), the branch capture's record of freed memory, against a
// byte-by-byte model on random frees and allocations.
#include "freed_ranges.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

namespace nimble::accelerate {
namespace {

TEST(FreedRangesTest, AnAllocationFollowsEveryFreeItOverlaps) {
  FreedRanges<int> freed;
  freed.Set(100, 200, {1}, false);
  freed.Set(200, 300, {2}, false);
  EXPECT_EQ(freed.Overlapping(150, 250), (std::vector<int>{1, 2}));
  EXPECT_EQ(freed.Overlapping(300, 400), std::vector<int>{});
  EXPECT_EQ(freed.Overlapping(0, 101), std::vector<int>{1});
  // A free inside an earlier range splits it: the parts outside keep their nodes.
  freed.Set(120, 180, {3}, false);
  EXPECT_EQ(freed.Overlapping(100, 120), std::vector<int>{1});
  EXPECT_EQ(freed.Overlapping(120, 180), std::vector<int>{3});
  EXPECT_EQ(freed.Overlapping(180, 200), std::vector<int>{1});
  EXPECT_EQ(freed.size(), 4u);
  // Keeping what it covers: the new range follows both.
  freed.Set(150, 250, {4}, true);
  EXPECT_EQ(freed.Overlapping(160, 161), (std::vector<int>{1, 2, 3, 4}));
}

TEST(FreedRangesTest, MatchesAByteModelOnRandomFreesAndAllocations) {
  constexpr int kBytes = 64;
  std::mt19937 rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    FreedRanges<int> freed;
    std::vector<std::set<int>> model(kBytes);  // per byte, what an allocation of it must follow
    for (int step = 0; step < 40; ++step) {
      const int start = static_cast<int>(rng() % kBytes);
      const int end = start + 1 + static_cast<int>(rng() % (kBytes - start));
      if (rng() % 2 == 0) {
        std::vector<int> after;
        for (int k = static_cast<int>(rng() % 3); k > 0; --k) after.push_back(static_cast<int>(rng() % 20));
        const bool keep = rng() % 3 == 0;
        std::set<int> merged(after.begin(), after.end());
        if (keep) {
          for (int b = start; b < end; ++b) merged.insert(model[b].begin(), model[b].end());
        }
        for (int b = start; b < end; ++b) model[b] = merged;
        freed.Set(static_cast<uintptr_t>(start), static_cast<uintptr_t>(end), after, keep);
      } else {
        std::set<int> expected;
        for (int b = start; b < end; ++b) expected.insert(model[b].begin(), model[b].end());
        ASSERT_EQ(freed.Overlapping(static_cast<uintptr_t>(start), static_cast<uintptr_t>(end)),
                  std::vector<int>(expected.begin(), expected.end()))
            << "trial " << trial << " step " << step << " [" << start << ", " << end << ")";
      }
    }
  }
}

}  // namespace
}  // namespace nimble::accelerate
