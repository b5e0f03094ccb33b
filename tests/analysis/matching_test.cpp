#include "nimble/analysis/matching.h"

#include <gtest/gtest.h>

#include "dag_testing.h"

namespace nimble::analysis {
namespace {

void ExpectValidMatching(const Dag& dag, const Matching& m) {
  int32_t size = 0;
  for (int32_t u = 0; u < dag.num_nodes(); ++u) {
    const int32_t v = m.next[static_cast<size_t>(u)];
    if (v < 0) continue;
    ++size;
    const auto succ = dag.successors(u);
    ASSERT_NE(std::find(succ.begin(), succ.end(), v), succ.end()) << u << " -> " << v << " is not an edge";
    ASSERT_EQ(m.prev[static_cast<size_t>(v)], u);
  }
  for (int32_t v = 0; v < dag.num_nodes(); ++v) {
    const int32_t u = m.prev[static_cast<size_t>(v)];
    if (u >= 0) {
      ASSERT_EQ(m.next[static_cast<size_t>(u)], v);
    }
  }
  EXPECT_EQ(size, m.size);
}

// Largest set of edges with at most one leaving and one entering each node, by backtracking over edges.
int32_t BruteForceMatchingSize(const std::vector<OpEdge>& edges, size_t i, std::vector<bool>& out_used,
                               std::vector<bool>& in_used) {
  if (i == edges.size()) return 0;
  int32_t best = BruteForceMatchingSize(edges, i + 1, out_used, in_used);
  const auto u = static_cast<size_t>(edges[i].src.value());
  const auto v = static_cast<size_t>(edges[i].dst.value());
  if (!out_used[u] && !in_used[v]) {
    out_used[u] = in_used[v] = true;
    best = std::max(best, 1 + BruteForceMatchingSize(edges, i + 1, out_used, in_used));
    out_used[u] = in_used[v] = false;
  }
  return best;
}

TEST(MatchingTest, HopcroftKarpIsMaximumOnSmallRandomDags) {
  std::mt19937_64 rng(31);
  for (int trial = 0; trial < 2000; ++trial) {
    const int32_t n = 1 + static_cast<int32_t>(rng() % 9);
    const Dag dag = testing::MustBuild(n, testing::RandomDagEdges(rng, n, 0.4));
    const Matching m = MaximumMatching(dag);
    ExpectValidMatching(dag, m);
    std::vector<bool> out_used(static_cast<size_t>(n)), in_used(static_cast<size_t>(n));
    ASSERT_EQ(m.size, BruteForceMatchingSize(dag.Edges(), 0, out_used, in_used));
  }
}

TEST(MatchingTest, HopcroftKarpAgreesWithBoostEdmondsOnLargerDags) {
  std::mt19937_64 rng(32);
  for (int trial = 0; trial < 40; ++trial) {
    const int32_t n = 50 + static_cast<int32_t>(rng() % 400);
    const double p = (1.0 + static_cast<double>(rng() % 5)) / n;
    const Dag dag = testing::MustBuild(n, testing::RandomDagEdges(rng, n, p));
    const Matching hk = MaximumMatching(dag, MatchingAlgorithm::kHopcroftKarp);
    const Matching edmonds = MaximumMatching(dag, MatchingAlgorithm::kBoostEdmonds);
    ExpectValidMatching(dag, hk);
    ExpectValidMatching(dag, edmonds);
    ASSERT_EQ(hk.size, edmonds.size);
  }
}

// Greedy matching along the first free successor is not maximum here; augmenting must fix it.
TEST(MatchingTest, AugmentsPastAGreedyChoice) {
  // 0 -> {1, 2}, 3 -> {1}: greedy takes 0 -> 1, leaving 3 unmatched unless 0 switches to 2.
  const Dag dag = testing::MustBuild(4, {{OpId(0), OpId(1)}, {OpId(0), OpId(2)}, {OpId(3), OpId(1)}});
  const Matching m = MaximumMatching(dag);
  EXPECT_EQ(m.size, 2);
  EXPECT_EQ(m.next[0], 2);
  EXPECT_EQ(m.next[3], 1);
}

// Greedy matches x_i -> y_i for every i and leaves z unmatched; the only augmenting path then runs
// z -> y_0 -> x_0 -> y_1 -> ... -> y_k, 2k edges long: deep enough to overflow a recursive search.
TEST(MatchingTest, VeryLongAugmentingPathNeedsNoRecursion) {
  const int32_t k = 100000;
  const auto x = [](int32_t i) { return OpId(i); };
  const auto y = [k](int32_t i) { return OpId(k + i); };
  const OpId z(2 * k + 1);
  std::vector<OpEdge> edges;
  for (int32_t i = 0; i < k; ++i) {
    edges.push_back({x(i), y(i)});
    edges.push_back({x(i), y(i + 1)});
  }
  edges.push_back({z, y(0)});
  const Dag dag = testing::MustBuild(2 * k + 2, edges);
  const Matching m = MaximumMatching(dag);
  EXPECT_EQ(m.size, k + 1);
  EXPECT_EQ(m.next[static_cast<size_t>(z.value())], y(0).value());
}

}  // namespace
}  // namespace nimble::analysis
