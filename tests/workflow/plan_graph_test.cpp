// PlanGraph, the plan step over a graph built outside C++: hand-checked shapes, its errors, and the
// stream count and syncs against a brute force on random small DAGs.
#include "nimble/workflow/plan_graph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

namespace nimble::workflow {
namespace {

std::vector<OpEdge> Edges(std::initializer_list<std::pair<int, int>> pairs) {
  std::vector<OpEdge> edges;
  for (auto [a, b] : pairs) edges.push_back({OpId(a), OpId(b)});
  return edges;
}

TEST(PlanGraphTest, DiamondRunsItsTwoBranchesOnTwoStreams) {
  const auto edges = Edges({{0, 1}, {0, 2}, {1, 3}, {2, 3}});
  auto plan = PlanGraph(4, edges);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->multi.num_streams, 2);
  EXPECT_EQ(plan->width_streams, 2);
  EXPECT_EQ(plan->logical_concurrency, 2);
  EXPECT_NE(plan->multi.op_stream[1], plan->multi.op_stream[2]);
  EXPECT_EQ(plan->reduced_edges, 4);
  EXPECT_EQ(plan->matched_edges, 2);
  EXPECT_EQ(plan->multi.syncs.size(), 2u);  // |E'| - |M|
}

TEST(PlanGraphTest, TransitiveEdgeIsDroppedAndChainStaysOnOneStream) {
  const auto edges = Edges({{0, 1}, {1, 2}, {0, 2}});
  auto plan = PlanGraph(3, edges);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->multi.num_streams, 1);
  EXPECT_EQ(plan->reduced_edges, 2);
  EXPECT_TRUE(plan->multi.syncs.empty());
}

TEST(PlanGraphTest, MaxStreamsFoldsTheAssignment) {
  // Five independent ops: five streams, or two with the cap; the width stays five.
  GraphPlanOptions options;
  options.max_streams = 2;
  auto plan = PlanGraph(5, {}, options);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->multi.num_streams, 2);
  EXPECT_EQ(plan->width_streams, 5);
  EXPECT_EQ(plan->logical_concurrency, 5);
}

TEST(PlanGraphTest, CycleIsRefusedNamingTheOps) {
  GraphPlanOptions options;
  options.names = {"conv1", "relu", "add"};
  const auto edges = Edges({{0, 1}, {1, 2}, {2, 1}});
  auto plan = PlanGraph(3, edges, options);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(plan.status().message().find("relu"), std::string::npos) << plan.status().message();
  EXPECT_NE(plan.status().message().find("add"), std::string::npos) << plan.status().message();
}

TEST(PlanGraphTest, BadArgumentsAreRefused) {
  const auto out_of_range = Edges({{0, 3}});
  EXPECT_FALSE(PlanGraph(2, out_of_range).ok());
  EXPECT_FALSE(PlanGraph(-1, {}).ok());
  GraphPlanOptions negative;
  negative.max_streams = -1;
  EXPECT_FALSE(PlanGraph(2, {}, negative).ok());
  GraphPlanOptions names;
  names.names = {"only one"};
  EXPECT_FALSE(PlanGraph(2, {}, names).ok());
}

// Brute force: reachability by Floyd-Warshall, width by trying every subset (n <= 10).
struct Brute {
  explicit Brute(int n, const std::vector<OpEdge>& edges) : n(n), reach(n, std::vector<bool>(n, false)) {
    for (const OpEdge& e : edges) reach[e.src.value()][e.dst.value()] = true;
    for (int k = 0; k < n; ++k)
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
          if (reach[i][k] && reach[k][j]) reach[i][j] = true;
  }
  int Width() const {
    int best = 0;
    for (int mask = 1; mask < (1 << n); ++mask) {
      bool antichain = true;
      for (int i = 0; i < n && antichain; ++i)
        for (int j = 0; j < n && antichain; ++j)
          if ((mask >> i & 1) && (mask >> j & 1) && reach[i][j]) antichain = false;
      if (antichain) best = std::max(best, __builtin_popcount(static_cast<unsigned>(mask)));
    }
    return best;
  }
  int n;
  std::vector<std::vector<bool>> reach;
};

TEST(PlanGraphTest, RandomDagsMatchBruteForce) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 400; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 10);
    std::vector<OpEdge> edges;
    for (int a = 0; a < n; ++a)
      for (int b = a + 1; b < n; ++b)
        if (rng() % 3 == 0) edges.push_back({OpId(a), OpId(b)});
    auto plan = PlanGraph(n, edges);
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    const Brute brute(n, edges);
    EXPECT_EQ(plan->logical_concurrency, brute.Width()) << "trial " << trial;
    // One stream per chain of matched edges: n - |M| of them, never fewer than the width.
    EXPECT_EQ(plan->multi.num_streams, n - plan->matched_edges) << "trial " << trial;
    EXPECT_GE(plan->multi.num_streams, brute.Width()) << "trial " << trial;
    EXPECT_EQ(static_cast<int>(plan->multi.syncs.size()), plan->reduced_edges - plan->matched_edges);
    // Maximum logical concurrency: mutually unreachable ops never share a stream.
    for (int a = 0; a < n; ++a)
      for (int b = a + 1; b < n; ++b)
        if (!brute.reach[a][b] && !brute.reach[b][a]) {
          EXPECT_NE(plan->multi.op_stream[a], plan->multi.op_stream[b]) << "trial " << trial;
        }
    for (const OpEdge& s : plan->multi.syncs) {
      EXPECT_NE(plan->multi.op_stream[s.src.value()], plan->multi.op_stream[s.dst.value()]);
    }
  }
}

}  // namespace
}  // namespace nimble::workflow
