#include "nimble/analysis/critical_path.h"

#include <gtest/gtest.h>

#include "dag_testing.h"

namespace nimble::analysis {
namespace {

// Heaviest path by enumerating every path from every op (depth-first; fine for small graphs).
int64_t BruteForceLongestPath(const Dag& dag, const std::vector<int64_t>& w, int32_t v) {
  int64_t best = 0;
  for (int32_t s : dag.successors(v)) best = std::max(best, BruteForceLongestPath(dag, w, s));
  return w[static_cast<size_t>(v)] + best;
}

TEST(CriticalPathTest, MatchesBruteForceOnThousandsOfRandomDags) {
  std::mt19937_64 rng(51);
  for (int trial = 0; trial < 3000; ++trial) {
    const int32_t n = 1 + static_cast<int32_t>(rng() % 9);
    const Dag dag = testing::MustBuild(n, testing::RandomDagEdges(rng, n, 0.35));
    std::vector<int64_t> w(static_cast<size_t>(n));
    for (auto& x : w) x = static_cast<int64_t>(rng() % 1000);
    auto path = ComputeCriticalPath(dag, w);
    ASSERT_TRUE(path.ok());
    int64_t brute = 0;
    for (int32_t v = 0; v < n; ++v) brute = std::max(brute, BruteForceLongestPath(dag, w, v));
    ASSERT_EQ(path->length_ns, brute);
    // The ops listed form a path of the graph whose weights add up to the length.
    int64_t sum = 0;
    for (size_t i = 0; i < path->ops.size(); ++i) {
      sum += w[static_cast<size_t>(path->ops[i].value())];
      if (i == 0) continue;
      const auto succ = dag.successors(path->ops[i - 1].value());
      ASSERT_NE(std::find(succ.begin(), succ.end(), path->ops[i].value()), succ.end());
    }
    ASSERT_EQ(sum, brute);
  }
}

TEST(CriticalPathTest, DiamondTakesTheHeavierBranch) {
  const Dag dag = testing::MustBuild(4, {{OpId(0), OpId(1)}, {OpId(0), OpId(2)}, {OpId(1), OpId(3)}, {OpId(2), OpId(3)}});
  auto path = ComputeCriticalPath(dag, std::vector<int64_t>{10, 5, 30, 1});
  ASSERT_TRUE(path.ok());
  EXPECT_EQ(path->length_ns, 41);
  EXPECT_EQ(path->ops, (std::vector<OpId>{OpId(0), OpId(2), OpId(3)}));
}

TEST(CriticalPathTest, DeepChainNeedsNoRecursion) {
  const int32_t n = 300000;
  std::vector<OpEdge> edges;
  for (int32_t i = 0; i + 1 < n; ++i) edges.push_back({OpId(i), OpId(i + 1)});
  auto path = ComputeCriticalPath(testing::MustBuild(n, edges), std::vector<int64_t>(static_cast<size_t>(n), 2));
  ASSERT_TRUE(path.ok());
  EXPECT_EQ(path->length_ns, 2 * n);
  EXPECT_EQ(path->ops.size(), static_cast<size_t>(n));
}

TEST(CriticalPathTest, RejectsWrongWeightCountAndNegativeWeights) {
  const Dag dag = testing::MustBuild(2, {{OpId(0), OpId(1)}});
  EXPECT_FALSE(ComputeCriticalPath(dag, std::vector<int64_t>{1}).ok());
  auto negative = ComputeCriticalPath(dag, std::vector<int64_t>{1, -4});
  ASSERT_FALSE(negative.ok());
  EXPECT_NE(negative.status().message().find("op 1"), std::string::npos);
}

TEST(CriticalPathTest, EmptyGraphHasNoPath) {
  auto path = ComputeCriticalPath(testing::MustBuild(0, {}), std::vector<int64_t>{});
  ASSERT_TRUE(path.ok());
  EXPECT_EQ(path->length_ns, 0);
  EXPECT_TRUE(path->ops.empty());
}

TEST(CriticalPathTest, OpWeightsReadGpuTimes) {
  OpGraph g;
  g.ops = {{OpId(0), "a", "k", "", 7}, {OpId(1), "b", "k", "", 9}};
  EXPECT_EQ(OpWeights(g), (std::vector<int64_t>{7, 9}));
}

}  // namespace
}  // namespace nimble::analysis
