#include "nimble/analysis/transitive_reduction.h"

#include <gtest/gtest.h>

#include "dag_testing.h"

namespace nimble::analysis {
namespace {

// Kept edges are a subset, reachability is unchanged, and no kept edge can go.
void ExpectMinimumEquivalent(int32_t n, const std::vector<OpEdge>& edges, const Dag& reduced) {
  const auto reach = testing::BruteReach(n, edges);
  const std::vector<OpEdge> kept = reduced.Edges();
  for (const OpEdge& e : kept) {
    ASSERT_TRUE(reach[static_cast<size_t>(e.src.value())][static_cast<size_t>(e.dst.value())]);
  }
  ASSERT_EQ(testing::BruteReach(n, kept), reach);
  for (size_t drop = 0; drop < kept.size(); ++drop) {
    std::vector<OpEdge> fewer = kept;
    fewer.erase(fewer.begin() + static_cast<std::ptrdiff_t>(drop));
    ASSERT_NE(testing::BruteReach(n, fewer), reach) << "edge " << kept[drop].src.value() << " -> "
                                                    << kept[drop].dst.value() << " is redundant";
  }
}

TEST(TransitiveReductionTest, ThousandsOfSmallRandomDags) {
  std::mt19937_64 rng(21);
  for (int trial = 0; trial < 3000; ++trial) {
    const int32_t n = 1 + static_cast<int32_t>(rng() % 9);
    const double p = 0.15 + 0.7 * static_cast<double>(rng() % 100) / 100.0;
    const auto edges = testing::RandomDagEdges(rng, n, p);
    ExpectMinimumEquivalent(n, edges, TransitiveReduction(testing::MustBuild(n, edges)));
  }
}

TEST(TransitiveReductionTest, LargerGraphsAcrossManyBlocks) {
  std::mt19937_64 rng(22);
  for (int trial = 0; trial < 20; ++trial) {
    const int32_t n = 100 + static_cast<int32_t>(rng() % 100);
    const auto edges = testing::RandomDagEdges(rng, n, 4.0 / n);
    ReductionOptions options;
    options.closure_budget_bytes = 1;  // 64 columns per block
    const Dag reduced = TransitiveReduction(testing::MustBuild(n, edges), options);
    const auto reach = testing::BruteReach(n, edges);
    ASSERT_EQ(testing::BruteReach(n, reduced.Edges()), reach);
    // Minimal: a kept edge u -> v has no other path, i.e. no other successor of u reaches v.
    for (const OpEdge& e : reduced.Edges()) {
      for (int32_t w : reduced.successors(e.src.value())) {
        ASSERT_FALSE(reach[static_cast<size_t>(w)][static_cast<size_t>(e.dst.value())]);
      }
    }
  }
}

TEST(TransitiveReductionTest, DiamondWithShortcutLosesTheShortcut) {
  const std::vector<OpEdge> edges{{OpId(0), OpId(1)}, {OpId(0), OpId(2)}, {OpId(1), OpId(3)},
                                  {OpId(2), OpId(3)}, {OpId(0), OpId(3)}};
  const Dag reduced = TransitiveReduction(testing::MustBuild(4, edges));
  EXPECT_EQ(reduced.Edges(), (std::vector<OpEdge>{{OpId(0), OpId(1)}, {OpId(0), OpId(2)}, {OpId(1), OpId(3)},
                                                  {OpId(2), OpId(3)}}));
}

TEST(TransitiveReductionTest, CompleteOrderBecomesAChain) {
  std::vector<OpEdge> edges;
  for (int32_t i = 0; i < 6; ++i) {
    for (int32_t j = i + 1; j < 6; ++j) edges.push_back({OpId(i), OpId(j)});
  }
  const Dag reduced = TransitiveReduction(testing::MustBuild(6, edges));
  ASSERT_EQ(reduced.num_edges(), 5);
  for (int32_t i = 0; i < 5; ++i) EXPECT_EQ(reduced.successors(i)[0], i + 1);
}

}  // namespace
}  // namespace nimble::analysis
