#include "nimble/analysis/dag.h"

#include <gtest/gtest.h>

#include "dag_testing.h"

namespace nimble::analysis {
namespace {

OpGraph Named(int32_t n, std::vector<OpEdge> edges) {
  OpGraph g;
  for (int32_t i = 0; i < n; ++i) g.ops.push_back({OpId(i), "op" + std::to_string(i), "aten::add", "", 0});
  g.edges = std::move(edges);
  return g;
}

TEST(DagTest, BuildsCompressedRowsAndBothDirections) {
  const Dag dag = testing::MustBuild(4, {{OpId(0), OpId(2)}, {OpId(0), OpId(1)}, {OpId(1), OpId(3)}, {OpId(2), OpId(3)}});
  EXPECT_EQ(dag.num_nodes(), 4);
  EXPECT_EQ(dag.num_edges(), 4);
  EXPECT_EQ(std::vector<int32_t>(dag.successors(0).begin(), dag.successors(0).end()), (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(std::vector<int32_t>(dag.predecessors(3).begin(), dag.predecessors(3).end()), (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(dag.first_edge(1), 2);
  EXPECT_EQ(dag.edge_target(2), 3);
}

TEST(DagTest, DuplicateEdgesCollapseAndDataWins) {
  const Dag dag = testing::MustBuild(2, {{OpId(0), OpId(1), EdgeKind::kOrder}, {OpId(0), OpId(1), EdgeKind::kData}});
  ASSERT_EQ(dag.num_edges(), 1);
  EXPECT_EQ(dag.successor_kinds(0)[0], EdgeKind::kData);
}

TEST(DagTest, TopologicalOrderOfRandomGraphsPutsEveryEdgeForward) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    const int32_t n = 1 + static_cast<int32_t>(rng() % 40);
    const auto edges = testing::RandomDagEdges(rng, n, 0.2);
    const Dag dag = testing::MustBuild(n, edges);
    ASSERT_EQ(static_cast<int32_t>(dag.topological_order().size()), n);
    for (const OpEdge& e : edges) {
      EXPECT_LT(dag.topological_position(e.src.value()), dag.topological_position(e.dst.value()));
    }
  }
}

TEST(DagTest, CycleIsReportedInOrderWithOpNames) {
  auto dag = Dag::FromOpGraph(Named(5, {{OpId(0), OpId(1)}, {OpId(1), OpId(2)}, {OpId(2), OpId(3)}, {OpId(3), OpId(1)},
                                        {OpId(3), OpId(4)}}));
  ASSERT_FALSE(dag.ok());
  EXPECT_EQ(dag.status().code(), StatusCode::kInvalidArgument);
  const std::string msg = dag.status().message();
  // The cycle may start at any of its ops, but must follow the edges.
  const bool in_order = msg.find("'op1' -> 'op2' -> 'op3' -> 'op1'") != std::string::npos ||
                        msg.find("'op2' -> 'op3' -> 'op1' -> 'op2'") != std::string::npos ||
                        msg.find("'op3' -> 'op1' -> 'op2' -> 'op3'") != std::string::npos;
  EXPECT_TRUE(in_order) << msg;
  EXPECT_EQ(msg.find("op0"), std::string::npos) << msg;
}

TEST(DagTest, SelfLoopFromBareEdgesIsACycle) {
  auto dag = Dag::FromEdges(3, std::vector<OpEdge>{{OpId(2), OpId(2)}});
  ASSERT_FALSE(dag.ok());
  EXPECT_NE(dag.status().message().find("'op 2' -> 'op 2'"), std::string::npos) << dag.status().message();
}

TEST(DagTest, DanglingEdgeNamesTheExistingOp) {
  const std::vector<OpEdge> edges{{OpId(1), OpId(7)}};
  const NodeNamer name = [](int32_t v) { return "conv" + std::to_string(v); };
  auto dag = Dag::FromEdges(3, edges, name);
  ASSERT_FALSE(dag.ok());
  EXPECT_NE(dag.status().message().find("from 'conv1' to 7"), std::string::npos) << dag.status().message();
}

TEST(DagTest, FromOpGraphRejectsDanglingEdges) {
  auto dag = Dag::FromOpGraph(Named(2, {{OpId(0), OpId(5)}}));
  ASSERT_FALSE(dag.ok());
  EXPECT_NE(dag.status().message().find("0 -> 5"), std::string::npos) << dag.status().message();
}

TEST(DagTest, KeepEdgesKeepsNodesAndOrder) {
  const Dag dag = testing::MustBuild(3, {{OpId(0), OpId(1)}, {OpId(0), OpId(2)}, {OpId(1), OpId(2)}});
  const std::vector<uint8_t> keep{1, 0, 1};
  const Dag kept = dag.KeepEdges(keep);
  EXPECT_EQ(kept.num_nodes(), 3);
  EXPECT_EQ(kept.Edges(), (std::vector<OpEdge>{{OpId(0), OpId(1)}, {OpId(1), OpId(2)}}));
  EXPECT_EQ(std::vector<int32_t>(kept.topological_order().begin(), kept.topological_order().end()),
            std::vector<int32_t>(dag.topological_order().begin(), dag.topological_order().end()));
}

TEST(DagTest, EmptyGraph) {
  const Dag dag = testing::MustBuild(0, {});
  EXPECT_EQ(dag.num_nodes(), 0);
  EXPECT_EQ(dag.num_edges(), 0);
}

}  // namespace
}  // namespace nimble::analysis
