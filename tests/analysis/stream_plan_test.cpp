// PlanStreams against the algorithm's own guarantees on many random DAGs: ops joined by a reduced edge
// on one stream are ordered, every reduced edge across streams is a sync, |syncs| = |E'| - |M| without a
// cap, the cap holds, and mutually unreachable ops never share a stream without a cap.
#include "nimble/analysis/stream_plan.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <utility>

#include "dag_testing.h"

namespace nimble::analysis {
namespace {

using testing::BruteReach;
using testing::MustBuild;
using testing::RandomDagEdges;

std::set<std::pair<int32_t, int32_t>> CrossingEdges(const StreamAssignment& a, const std::vector<OpEdge>& edges) {
  std::set<std::pair<int32_t, int32_t>> out;
  for (const OpEdge& e : edges) {
    if (a.op_stream[static_cast<size_t>(e.src.value())] != a.op_stream[static_cast<size_t>(e.dst.value())]) {
      out.insert({e.src.value(), e.dst.value()});
    }
  }
  return out;
}

std::set<std::pair<int32_t, int32_t>> SyncSet(const StreamAssignment& a) {
  std::set<std::pair<int32_t, int32_t>> out;
  for (const OpEdge& e : a.syncs) out.insert({e.src.value(), e.dst.value()});
  return out;
}

TEST(StreamPlanTest, RandomDagsKeepTheAlgorithmsGuarantees) {
  std::mt19937_64 rng(20261124);
  for (int trial = 0; trial < 300; ++trial) {
    const int32_t n = 1 + static_cast<int32_t>(rng() % 14);
    const auto edges = RandomDagEdges(rng, n, 0.25);
    const Dag dag = MustBuild(n, edges);
    const StreamPlan plan = PlanStreams(dag);
    ASSERT_EQ(plan.multi.op_stream.size(), static_cast<size_t>(n));
    EXPECT_EQ(plan.multi.num_streams, plan.width_streams);
    EXPECT_EQ(static_cast<int64_t>(plan.multi.syncs.size()),
              static_cast<int64_t>(plan.reduced_edges.size()) - plan.matched_edges);
    EXPECT_EQ(SyncSet(plan.multi), CrossingEdges(plan.multi, plan.reduced_edges));
    // Maximum concurrency: two ops on one stream must be ordered.
    const auto reach = BruteReach(n, edges);
    for (int32_t u = 0; u < n; ++u) {
      for (int32_t v = u + 1; v < n; ++v) {
        if (plan.multi.op_stream[static_cast<size_t>(u)] != plan.multi.op_stream[static_cast<size_t>(v)]) continue;
        EXPECT_TRUE(reach[static_cast<size_t>(u)][static_cast<size_t>(v)] || reach[static_cast<size_t>(v)][static_cast<size_t>(u)])
            << "trial " << trial << ": unordered ops " << u << " and " << v << " share a stream";
      }
    }
    // Chains of a matching on G' cover every op, so there are at least as many as the width (Dilworth);
    // there can be more, since matched edges of G' are not all edges of the closure.
    EXPECT_LE(plan.concurrency.width, plan.width_streams) << "trial " << trial;
    EXPECT_GE(plan.concurrency.width, 1);
    EXPECT_EQ(plan.single.num_streams, n > 0 ? 1 : 0);
    EXPECT_TRUE(plan.single.syncs.empty());

    // Packed without a cap: never more streams, syncs still exactly the crossing edges, and two ops at
    // the same depth (never ordered: an edge adds one) still on different streams.
    const StreamAssignment packed = PackStreams(plan.multi, plan.reduced_edges);
    EXPECT_LE(packed.num_streams, plan.multi.num_streams);
    EXPECT_EQ(SyncSet(packed), CrossingEdges(packed, plan.reduced_edges)) << "trial " << trial;
    std::vector<int32_t> depth(static_cast<size_t>(n), 0);  // ids are not in topological order: n passes
    for (int32_t pass = 0; pass < n; ++pass) {
      for (int32_t v = 0; v < n; ++v) {
        for (int32_t u = 0; u < n; ++u) {
          if (reach[static_cast<size_t>(u)][static_cast<size_t>(v)] && u != v) {
            depth[static_cast<size_t>(v)] = std::max(depth[static_cast<size_t>(v)], depth[static_cast<size_t>(u)] + 1);
          }
        }
      }
    }
    for (int32_t u = 0; u < n; ++u) {
      for (int32_t v = u + 1; v < n; ++v) {
        if (depth[static_cast<size_t>(u)] != depth[static_cast<size_t>(v)]) continue;
        EXPECT_NE(packed.op_stream[static_cast<size_t>(u)], packed.op_stream[static_cast<size_t>(v)])
            << "trial " << trial << ": ops " << u << " and " << v << " at one depth share a stream";
      }
    }

    const int32_t cap = 1 + static_cast<int32_t>(rng() % 3);
    const StreamPlan capped = PlanStreams(dag, PlanOptions{.max_streams = cap, .concurrency = false});
    EXPECT_LE(capped.multi.num_streams, std::min(cap, plan.width_streams));
    EXPECT_GE(capped.multi.num_streams, 1);
    EXPECT_EQ(capped.width_streams, plan.width_streams);
    EXPECT_EQ(SyncSet(capped.multi), CrossingEdges(capped.multi, capped.reduced_edges)) << "trial " << trial;
    EXPECT_EQ(capped.concurrency.width, 0);
  }
}

TEST(StreamPlanTest, TwoIndependentChainsGetTwoStreamsAndOneStreamWhenCapped) {
  // 0 -> 1 -> 3, 0 -> 2 -> 3: width 2, one fork and one join across streams.
  const Dag dag = MustBuild(4, {{OpId(0), OpId(1), EdgeKind::kData},
                                {OpId(0), OpId(2), EdgeKind::kData},
                                {OpId(1), OpId(3), EdgeKind::kData},
                                {OpId(2), OpId(3), EdgeKind::kData}});
  const StreamPlan plan = PlanStreams(dag);
  EXPECT_EQ(plan.multi.num_streams, 2);
  EXPECT_EQ(plan.multi.syncs.size(), 2u);
  EXPECT_EQ(plan.concurrency.width, 2);
  const StreamPlan one = PlanStreams(dag, PlanOptions{.max_streams = 1});
  EXPECT_EQ(one.multi.num_streams, 1);
  EXPECT_TRUE(one.multi.syncs.empty());
}

// Two diamonds one after the other: 0 -> {1, 2} -> 3 -> {4, 5} -> 6. Three chains, but the two side
// chains never overlap in op order, so a cap of two streams loses no concurrency: they share a lane.
TEST(StreamPlanTest, CappingPacksStreamsThatNeverOverlapOntoOneLane) {
  const Dag dag = MustBuild(7, {{OpId(0), OpId(1), EdgeKind::kData}, {OpId(0), OpId(2), EdgeKind::kData},
                                {OpId(1), OpId(3), EdgeKind::kData}, {OpId(2), OpId(3), EdgeKind::kData},
                                {OpId(3), OpId(4), EdgeKind::kData}, {OpId(3), OpId(5), EdgeKind::kData},
                                {OpId(4), OpId(6), EdgeKind::kData}, {OpId(5), OpId(6), EdgeKind::kData}});
  const StreamPlan plan = PlanStreams(dag);
  ASSERT_EQ(plan.multi.num_streams, 3);
  const StreamPlan capped = PlanStreams(dag, PlanOptions{.max_streams = 2});
  ASSERT_EQ(capped.multi.num_streams, 2);
  const auto& s = capped.multi.op_stream;
  EXPECT_EQ(s[0], StreamId(0));
  EXPECT_NE(s[1], s[2]);
  EXPECT_NE(s[4], s[5]);
  EXPECT_EQ(SyncSet(capped.multi), CrossingEdges(capped.multi, capped.reduced_edges));
}

// Three branches listed one after the other, as a model's source lists them: 0 -> {1 -> 2, 3 -> 4,
// 5 -> 6} -> 7. In op order the side branches never overlap, in time they all do: capped at three
// streams, every branch must keep a stream of its own.
TEST(StreamPlanTest, CappingKeepsBranchesListedOneAfterTheOtherApart) {
  const Dag dag = MustBuild(8, {{OpId(0), OpId(1), EdgeKind::kData}, {OpId(1), OpId(2), EdgeKind::kData},
                                {OpId(0), OpId(3), EdgeKind::kData}, {OpId(3), OpId(4), EdgeKind::kData},
                                {OpId(0), OpId(5), EdgeKind::kData}, {OpId(5), OpId(6), EdgeKind::kData},
                                {OpId(2), OpId(7), EdgeKind::kData}, {OpId(4), OpId(7), EdgeKind::kData},
                                {OpId(6), OpId(7), EdgeKind::kData}});
  const StreamPlan capped = PlanStreams(dag, PlanOptions{.max_streams = 3});
  ASSERT_EQ(capped.multi.num_streams, 3);
  const auto& s = capped.multi.op_stream;
  EXPECT_NE(s[1], s[3]);
  EXPECT_NE(s[1], s[5]);
  EXPECT_NE(s[3], s[5]);
}

// 0 -> 1 -> 2 -> 3, 2 -> 4, 0 -> 5 -> 6, {3, 4, 6} -> 7, ops in that order: the chain {5, 6} spans
// depths 1-2 and {4} depth 3, but 4 comes first in op order. On one lane 5 and 6 would queue behind 4,
// which waits for 2: they must not share one.
TEST(StreamPlanTest, PackingNeverQueuesAStreamBehindOneLaterInDepthButEarlierInOpOrder) {
  const Dag dag = MustBuild(8, {{OpId(0), OpId(1), EdgeKind::kData}, {OpId(1), OpId(2), EdgeKind::kData},
                                {OpId(2), OpId(3), EdgeKind::kData}, {OpId(2), OpId(4), EdgeKind::kData},
                                {OpId(0), OpId(5), EdgeKind::kData}, {OpId(5), OpId(6), EdgeKind::kData},
                                {OpId(3), OpId(7), EdgeKind::kData}, {OpId(4), OpId(7), EdgeKind::kData},
                                {OpId(6), OpId(7), EdgeKind::kData}});
  const StreamPlan plan = PlanStreams(dag);
  const StreamAssignment packed = PackStreams(plan.multi, plan.reduced_edges);
  const auto& s = packed.op_stream;
  EXPECT_NE(s[4], s[5]);
  EXPECT_NE(s[5], s[1]);
  EXPECT_NE(s[4], s[3]);
}

}  // namespace
}  // namespace nimble::analysis
