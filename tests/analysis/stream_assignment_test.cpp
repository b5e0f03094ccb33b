#include "nimble/analysis/stream_assignment.h"

#include <gtest/gtest.h>

#include <climits>

#include "dag_testing.h"

namespace nimble::analysis {
namespace {

using testing::ReachMatrix;

// Fewest G' edges crossing streams over every partition of the ops into chains (sets that are totally
// ordered by reachability), built by placing ops in topological order.
class ChainPartitions {
 public:
  ChainPartitions(const Dag& reduced, const ReachMatrix& reach) : reduced_(reduced), reach_(reach) {}

  int32_t MinimumCrossingEdges() {
    block_of_.assign(static_cast<size_t>(reduced_.num_nodes()), -1);
    best_ = INT32_MAX;
    Place(0);
    return best_;
  }

 private:
  void Place(size_t i) {
    const auto order = reduced_.topological_order();
    if (i == order.size()) {
      int32_t crossing = 0;
      for (const OpEdge& e : reduced_.Edges()) {
        crossing += block_of_[static_cast<size_t>(e.src.value())] != block_of_[static_cast<size_t>(e.dst.value())];
      }
      best_ = std::min(best_, crossing);
      return;
    }
    const int32_t v = order[i];
    // v may join a chain whose last op reaches it (earlier ops reach that one), or start a new chain.
    for (size_t b = 0; b < last_.size(); ++b) {
      const int32_t last = last_[b];
      if (!reach_[static_cast<size_t>(last)][static_cast<size_t>(v)]) continue;
      last_[b] = v;
      block_of_[static_cast<size_t>(v)] = static_cast<int32_t>(b);
      Place(i + 1);
      last_[b] = last;
    }
    last_.push_back(v);
    block_of_[static_cast<size_t>(v)] = static_cast<int32_t>(last_.size() - 1);
    Place(i + 1);
    last_.pop_back();
  }

  const Dag& reduced_;
  const ReachMatrix& reach_;
  std::vector<int32_t> block_of_;
  std::vector<int32_t> last_;  // last op of each chain so far
  int32_t best_ = INT32_MAX;
};

// Largest set of G' edges forming vertex-disjoint paths (at most one in and one out per op).
int32_t LargestPathEdgeSet(const std::vector<OpEdge>& edges, size_t i, std::vector<bool>& out, std::vector<bool>& in) {
  if (i == edges.size()) return 0;
  int32_t best = LargestPathEdgeSet(edges, i + 1, out, in);
  const auto u = static_cast<size_t>(edges[i].src.value());
  const auto v = static_cast<size_t>(edges[i].dst.value());
  if (!out[u] && !in[v]) {
    out[u] = in[v] = true;
    best = std::max(best, 1 + LargestPathEdgeSet(edges, i + 1, out, in));
    out[u] = in[v] = false;
  }
  return best;
}

void ExpectStreamsAreChainsOfReducedEdges(const Dag& reduced, const StreamAssignment& a) {
  std::vector<std::vector<int32_t>> streams(static_cast<size_t>(a.num_streams));
  for (int32_t v : reduced.topological_order()) streams[static_cast<size_t>(a.op_stream[static_cast<size_t>(v)].value())].push_back(v);
  for (const auto& ops : streams) {
    ASSERT_FALSE(ops.empty());
    for (size_t i = 0; i + 1 < ops.size(); ++i) {
      const auto succ = reduced.successors(ops[i]);
      ASSERT_NE(std::find(succ.begin(), succ.end(), ops[i + 1]), succ.end()) << "stream is not a path of G'";
    }
  }
}

TEST(StreamAssignmentTest, OptimalOnThousandsOfSmallRandomDags) {
  std::mt19937_64 rng(41);
  for (int trial = 0; trial < 2500; ++trial) {
    const int32_t n = 1 + static_cast<int32_t>(rng() % (trial < 2000 ? 8 : 9));
    const double p = 0.1 + 0.6 * static_cast<double>(rng() % 100) / 100.0;
    const auto edges = testing::RandomDagEdges(rng, n, p);
    const Dag dag = testing::MustBuild(n, edges);
    const ReachMatrix reach = testing::BruteReach(n, edges);
    const Dag reduced = TransitiveReduction(dag);
    const Matching m = MaximumMatching(reduced);
    const StreamAssignment a = AssignStreams(reduced, m);
    EXPECT_EQ(a, AssignStreams(dag));
    ASSERT_EQ(a.num_streams, n - m.size);
    // Maximum logical concurrency: ops sharing a stream are ordered, so unordered ops never share one.
    for (int32_t u = 0; u < n; ++u) {
      for (int32_t v = u + 1; v < n; ++v) {
        if (a.op_stream[static_cast<size_t>(u)] == a.op_stream[static_cast<size_t>(v)]) {
          ASSERT_TRUE(testing::Comparable(reach, u, v));
        }
      }
    }
    ExpectStreamsAreChainsOfReducedEdges(reduced, a);
    // Syncs: exactly the cross-stream edges of G', |E'| - |M| of them, and no assignment needs fewer.
    ASSERT_EQ(static_cast<int64_t>(a.syncs.size()), reduced.num_edges() - m.size);
    for (const OpEdge& e : a.syncs) ASSERT_NE(a.op_stream[static_cast<size_t>(e.src.value())], a.op_stream[static_cast<size_t>(e.dst.value())]);
    std::vector<bool> out(static_cast<size_t>(n)), in(static_cast<size_t>(n));
    ASSERT_EQ(static_cast<int64_t>(a.syncs.size()), reduced.num_edges() - LargestPathEdgeSet(reduced.Edges(), 0, out, in));
    ASSERT_EQ(static_cast<int32_t>(a.syncs.size()), ChainPartitions(reduced, reach).MinimumCrossingEdges());
  }
}

TEST(StreamAssignmentTest, ChainRunsOnOneStreamWithoutSyncs) {
  const Dag dag = testing::MustBuild(5, {{OpId(0), OpId(1)}, {OpId(1), OpId(2)}, {OpId(2), OpId(3)}, {OpId(3), OpId(4)},
                                         {OpId(0), OpId(4)}});
  const StreamAssignment a = AssignStreams(dag);
  EXPECT_EQ(a.num_streams, 1);
  EXPECT_TRUE(a.syncs.empty());
}

TEST(StreamAssignmentTest, DiamondUsesTwoStreamsAndTwoSyncs) {
  const Dag dag = testing::MustBuild(4, {{OpId(0), OpId(1)}, {OpId(0), OpId(2)}, {OpId(1), OpId(3)}, {OpId(2), OpId(3)}});
  const StreamAssignment a = AssignStreams(dag);
  EXPECT_EQ(a.num_streams, 2);
  EXPECT_EQ(a.op_stream[0], a.op_stream[3]);  // the matched path 0 -> 1 -> 3 keeps the first stream
  EXPECT_EQ(a.syncs, (std::vector<OpEdge>{{OpId(0), OpId(2)}, {OpId(2), OpId(3)}}));
}

TEST(StreamAssignmentTest, ForkOfThreeBranchesAndJoin) {
  const Dag dag = testing::MustBuild(5, {{OpId(0), OpId(1)}, {OpId(0), OpId(2)}, {OpId(0), OpId(3)}, {OpId(1), OpId(4)},
                                         {OpId(2), OpId(4)}, {OpId(3), OpId(4)}});
  const StreamAssignment a = AssignStreams(dag);
  EXPECT_EQ(a.num_streams, 3);
  EXPECT_EQ(a.syncs.size(), 4u);  // |E'| = 6, |M| = 2
  EXPECT_NE(a.op_stream[1], a.op_stream[2]);
  EXPECT_NE(a.op_stream[2], a.op_stream[3]);
  EXPECT_NE(a.op_stream[1], a.op_stream[3]);
}

// An Inception-style block: four branches between an input and a concat, plus a redundant order edge.
TEST(StreamAssignmentTest, InceptionBlockWithRedundantEdge) {
  const std::vector<OpEdge> edges{{OpId(0), OpId(1)}, {OpId(0), OpId(2)}, {OpId(2), OpId(3)}, {OpId(0), OpId(4)},
                                  {OpId(4), OpId(5)}, {OpId(0), OpId(6)}, {OpId(6), OpId(7)}, {OpId(1), OpId(8)},
                                  {OpId(3), OpId(8)}, {OpId(5), OpId(8)}, {OpId(7), OpId(8)},
                                  {OpId(0), OpId(8), EdgeKind::kOrder}};
  const Dag dag = testing::MustBuild(9, edges);
  const Dag reduced = TransitiveReduction(dag);
  EXPECT_EQ(reduced.num_edges(), 11);
  const StreamAssignment a = AssignStreams(dag);
  EXPECT_EQ(a.num_streams, 4);
  EXPECT_EQ(a.syncs.size(), 6u);  // 11 - 5
  for (const OpEdge& e : a.syncs) EXPECT_EQ(e.kind, EdgeKind::kData);
}

TEST(StreamAssignmentTest, SingleStreamPutsEverythingOnStreamZero) {
  const Dag dag = testing::MustBuild(3, {{OpId(0), OpId(2)}});
  const StreamAssignment a = SingleStream(dag);
  EXPECT_EQ(a.num_streams, 1);
  EXPECT_EQ(a.op_stream, std::vector<StreamId>(3, StreamId(0)));
  EXPECT_TRUE(a.syncs.empty());
}

}  // namespace
}  // namespace nimble::analysis
