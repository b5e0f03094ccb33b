#include "nimble/analysis/reachability.h"

#include <gtest/gtest.h>

#include "dag_testing.h"

namespace nimble::analysis {
namespace {

// Every (u, v) pair, block by block, against Floyd-Warshall; tiny budgets force many blocks.
TEST(ReachabilityTest, BlocksMatchBruteForceReachability) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 60; ++trial) {
    const int32_t n = 1 + static_cast<int32_t>(rng() % 300);
    const auto edges = testing::RandomDagEdges(rng, n, 3.0 / n);
    const Dag dag = testing::MustBuild(n, edges);
    const auto reach = testing::BruteReach(n, edges);
    const int64_t budget = trial % 2 == 0 ? 1 : int64_t{1} << 20;
    BlockedClosure closure(dag, budget);
    if (trial % 2 == 0) {
      ASSERT_EQ(closure.num_blocks(), (n + 63) / 64);
    }
    for (int32_t b = 0; b < closure.num_blocks(); ++b) {
      closure.ComputeBlock(b);
      for (int32_t u = 0; u < n; ++u) {
        for (int32_t p = closure.block_begin(b); p < closure.block_end(b); ++p) {
          const int32_t v = dag.topological_order()[static_cast<size_t>(p)];
          ASSERT_EQ(closure.Reaches(u, v), reach[static_cast<size_t>(u)][static_cast<size_t>(v)]) << u << " -> " << v;
        }
      }
    }
  }
}

// The visitor sees exactly the nodes reached through two or more edges.
TEST(ReachabilityTest, LongPathRowsAreReachabilityThroughAChild) {
  std::mt19937_64 rng(12);
  for (int trial = 0; trial < 200; ++trial) {
    const int32_t n = 2 + static_cast<int32_t>(rng() % 100);
    const auto edges = testing::RandomDagEdges(rng, n, 0.1);
    const Dag dag = testing::MustBuild(n, edges);
    const auto reach = testing::BruteReach(n, edges);
    BlockedClosure closure(dag, 8 * n);  // one word per row: blocks of 64 columns
    int64_t visits = 0;
    for (int32_t b = 0; b < closure.num_blocks(); ++b) {
      closure.ComputeBlock(b, [&](int32_t u, const BitRow& row) {
        ++visits;
        for (int32_t p = closure.block_begin(b); p < closure.block_end(b); ++p) {
          const int32_t v = dag.topological_order()[static_cast<size_t>(p)];
          bool via_child = false;
          for (int32_t w : dag.successors(u)) via_child = via_child || reach[static_cast<size_t>(w)][static_cast<size_t>(v)];
          ASSERT_EQ(row.Test(p), via_child) << u << " -> " << v;
        }
      });
    }
    EXPECT_GT(visits, 0);
  }
}

TEST(ReachabilityTest, MemoryStaysWithinBudget) {
  std::mt19937_64 rng(13);
  const int32_t n = 5000;
  const Dag dag = testing::MustBuild(n, testing::RandomDagEdges(rng, n, 0.001));
  const int64_t budget = 64 * 1024;
  BlockedClosure closure(dag, budget);
  EXPECT_GT(closure.num_blocks(), 1);
  for (int32_t b = 0; b < closure.num_blocks(); ++b) {
    closure.ComputeBlock(b);
    EXPECT_LE(closure.memory_bytes(), budget);
  }
}

}  // namespace
}  // namespace nimble::analysis
