#include "nimble/analysis/concurrency.h"

#include <gtest/gtest.h>

#include "dag_testing.h"
#include "nimble/analysis/transitive_reduction.h"

namespace nimble::analysis {
namespace {

int32_t BruteForceWidth(int32_t n, const testing::ReachMatrix& reach) {
  int32_t best = 0;
  for (uint32_t set = 0; set < (1u << n); ++set) {
    bool antichain = true;
    for (int32_t u = 0; u < n && antichain; ++u) {
      for (int32_t v = u + 1; v < n && antichain; ++v) {
        if (((set >> u) & 1) && ((set >> v) & 1) && testing::Comparable(reach, u, v)) antichain = false;
      }
    }
    if (antichain) best = std::max(best, __builtin_popcount(set));
  }
  return best;
}

void ExpectAntichain(const Concurrency& c, const testing::ReachMatrix& reach) {
  ASSERT_EQ(static_cast<int32_t>(c.antichain.size()), c.width);
  for (size_t i = 0; i < c.antichain.size(); ++i) {
    for (size_t j = i + 1; j < c.antichain.size(); ++j) {
      ASSERT_FALSE(testing::Comparable(reach, c.antichain[i].value(), c.antichain[j].value()));
    }
  }
}

TEST(ConcurrencyTest, WidthMatchesBruteForceOnThousandsOfRandomDags) {
  std::mt19937_64 rng(61);
  for (int trial = 0; trial < 3000; ++trial) {
    const int32_t n = 1 + static_cast<int32_t>(rng() % 12);
    const double p = 0.05 + 0.6 * static_cast<double>(rng() % 100) / 100.0;
    const auto edges = testing::RandomDagEdges(rng, n, p);
    const auto reach = testing::BruteReach(n, edges);
    const Concurrency c = ComputeConcurrency(testing::MustBuild(n, edges));
    ASSERT_EQ(c.width, BruteForceWidth(n, reach));
    ExpectAntichain(c, reach);
  }
}

// Dilworth on bigger graphs: width = n - maximum matching in the bipartite graph of the closure.
TEST(ConcurrencyTest, WidthMatchesClosureMatchingOnLargerDags) {
  std::mt19937_64 rng(62);
  for (int trial = 0; trial < 30; ++trial) {
    const int32_t n = 50 + static_cast<int32_t>(rng() % 250);
    const auto edges = testing::RandomDagEdges(rng, n, 2.5 / n);
    const auto reach = testing::BruteReach(n, edges);
    std::vector<OpEdge> closure;
    for (int32_t u = 0; u < n; ++u) {
      for (int32_t v = 0; v < n; ++v) {
        if (reach[static_cast<size_t>(u)][static_cast<size_t>(v)]) closure.push_back({OpId(u), OpId(v)});
      }
    }
    const Matching on_closure = MaximumMatching(testing::MustBuild(n, closure), MatchingAlgorithm::kBoostEdmonds);
    const Dag dag = testing::MustBuild(n, edges);
    const Concurrency c = ComputeConcurrency(dag);
    ASSERT_EQ(c.width, n - on_closure.size);
    ExpectAntichain(c, reach);
    // Unreduced graph and any matching on it as the starting flow give the same answer.
    EXPECT_EQ(ComputeConcurrency(dag, MaximumMatching(dag)).width, c.width);
  }
}

TEST(ConcurrencyTest, ForkOfThreeHasWidthThree) {
  const Dag dag = testing::MustBuild(5, {{OpId(0), OpId(1)}, {OpId(0), OpId(2)}, {OpId(0), OpId(3)}, {OpId(1), OpId(4)},
                                         {OpId(2), OpId(4)}, {OpId(3), OpId(4)}});
  const Concurrency c = ComputeConcurrency(dag);
  EXPECT_EQ(c.width, 3);
  EXPECT_EQ(c.antichain, (std::vector<OpId>{OpId(1), OpId(2), OpId(3)}));
}

// Chains from a matching can be more than the width when chains must share ops: two crossing paths
// 0 -> 2 -> 3 and 1 -> 2 -> 4 need three disjoint chains but have width 2.
TEST(ConcurrencyTest, WidthCanBeBelowTheNumberOfStreams) {
  const Dag dag = testing::MustBuild(5, {{OpId(0), OpId(2)}, {OpId(1), OpId(2)}, {OpId(2), OpId(3)}, {OpId(2), OpId(4)}});
  const Dag reduced = TransitiveReduction(dag);
  const Matching m = MaximumMatching(reduced);
  EXPECT_EQ(dag.num_nodes() - m.size, 3);
  EXPECT_EQ(ComputeConcurrency(reduced, m).width, 2);
}

TEST(ConcurrencyTest, EdgelessAndEmptyGraphs) {
  EXPECT_EQ(ComputeConcurrency(testing::MustBuild(6, {})).width, 6);
  EXPECT_EQ(ComputeConcurrency(testing::MustBuild(0, {})).width, 0);
}

}  // namespace
}  // namespace nimble::analysis
