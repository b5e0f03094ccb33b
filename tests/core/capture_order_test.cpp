#include "nimble/core/capture_order.h"

#include <algorithm>

#include "nimble/core/release_points.h"

#include <gtest/gtest.h>

#include <random>

namespace nimble {
namespace {

OpGraph Ops(int n, const std::vector<std::pair<int, int>>& edges) {
  OpGraph g;
  for (int i = 0; i < n; ++i) g.ops.push_back({OpId(i), "op" + std::to_string(i), "aten::relu", "", 0});
  for (const auto& [src, dst] : edges) g.edges.push_back({OpId(src), OpId(dst)});
  return g;
}

StreamAssignment Streams(const std::vector<int>& streams, int count) {
  StreamAssignment a;
  for (int s : streams) a.op_stream.push_back(StreamId(s));
  a.num_streams = count;
  return a;
}

// Two branches of three ops written one after the other (0-1-2 on stream 0, 3-4-5 on stream 1, joined
// by op 6) come out interleaved, one step of each at a time.
TEST(BranchCaptureOrderTest, InterleavesBranchesThatRunTogether) {
  const OpGraph g = Ops(7, {{0, 1}, {1, 2}, {3, 4}, {4, 5}, {2, 6}, {5, 6}});
  const std::vector<int32_t> order = BranchCaptureOrder(g, Streams({0, 0, 0, 1, 1, 1, 0}, 2));
  EXPECT_EQ(order, (std::vector<int32_t>{0, 3, 1, 4, 2, 5, 6}));
}

// Independent ops packed onto one stream keep their stream order, even where a later one could start
// earlier by its edges alone.
TEST(BranchCaptureOrderTest, KeepsEachStreamsOrder) {
  const OpGraph g = Ops(4, {{0, 1}, {1, 2}});
  const std::vector<int32_t> order = BranchCaptureOrder(g, Streams({0, 0, 0, 0}, 1));
  EXPECT_EQ(order, (std::vector<int32_t>{0, 1, 2, 3}));
}

// With op times: a long op on one stream lets the other stream's short ops come first.
TEST(BranchCaptureOrderTest, OpTimesDecideWhichStreamGoesNext) {
  const OpGraph g = Ops(5, {{0, 1}, {2, 3}, {3, 4}});
  const StreamAssignment a = Streams({0, 0, 1, 1, 1}, 2);
  EXPECT_EQ(BranchCaptureOrder(g, a), (std::vector<int32_t>{0, 2, 1, 3, 4}));
  EXPECT_EQ(BranchCaptureOrder(g, a, {10, 1, 1, 1, 1}), (std::vector<int32_t>{0, 2, 3, 4, 1}));
  EXPECT_TRUE(BranchCaptureOrder(g, a, {1, 1}).empty());
}

TEST(BranchCaptureOrderTest, RefusesAnAssignmentThatDoesNotCoverTheGraph) {
  const OpGraph g = Ops(3, {{0, 1}});
  EXPECT_TRUE(BranchCaptureOrder(g, Streams({0, 0}, 1)).empty());
  EXPECT_TRUE(BranchCaptureOrder(g, Streams({0, 2, 0}, 2)).empty());
  EXPECT_TRUE(BranchCaptureOrder(Ops(3, {{2, 1}}), Streams({0, 0, 0}, 1)).empty());
}

// On random DAGs and assignments: a permutation, every edge forward, each stream's ops in op order.
TEST(BranchCaptureOrderTest, IsATopologicalOrderKeepingStreamOrderOnRandomGraphs) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 30);
    const int streams = 1 + static_cast<int>(rng() % 5);
    std::vector<std::pair<int, int>> edges;
    for (int dst = 1; dst < n; ++dst) {
      for (int src = 0; src < dst; ++src) {
        if (rng() % 6 == 0) edges.emplace_back(src, dst);
      }
    }
    std::vector<int> assigned;
    for (int i = 0; i < n; ++i) assigned.push_back(static_cast<int>(rng() % streams));
    const OpGraph g = Ops(n, edges);
    std::vector<int64_t> times;  // unit steps in half the trials, random times (some zero) in the others
    if (trial % 2 == 1) {
      for (int i = 0; i < n; ++i) times.push_back(static_cast<int64_t>(rng() % 50));
    }
    const std::vector<int32_t> order = BranchCaptureOrder(g, Streams(assigned, streams), times);
    ASSERT_EQ(order.size(), static_cast<size_t>(n));
    std::vector<int> position(n, -1);
    for (int i = 0; i < n; ++i) {
      ASSERT_GE(order[i], 0);
      ASSERT_LT(order[i], n);
      ASSERT_EQ(position[order[i]], -1) << "op " << order[i] << " twice";
      position[order[i]] = i;
    }
    for (const auto& [src, dst] : edges) EXPECT_LT(position[src], position[dst]) << src << " -> " << dst;
    for (int a = 0; a < n; ++a) {
      for (int b = a + 1; b < n; ++b) {
        if (assigned[a] == assigned[b]) {
          EXPECT_LT(position[a], position[b]) << "stream order of " << a << ", " << b;
        }
      }
    }
  }
}

}  // namespace
}  // namespace nimble

namespace nimble {
namespace {

// Stream 0 runs ops 0, 1, 2, 5; stream 1 runs 3 and 4. Op 0 is read on both streams: freed at its
// release point, op 5, which starts once both readers are done (no wait). Op 3's output, read by op 4
// on its own stream, is freed when op 4 starts and op 4 runs 20 more; op 1's, read by op 2, 5 more.
// Op 4's output is read on stream 0 and no later op of stream 1 follows: never freed, no wait.
TEST(ReleaseWaitsTest, IsHowLongTheLastReaderRunsAfterTheFreeWorkedByHand) {
  OpGraph g = Ops(6, {{0, 1}, {0, 4}, {1, 2}, {3, 4}, {4, 5}});
  StreamAssignment a = Streams({0, 0, 0, 1, 1, 0}, 2);
  a.syncs = {{OpId(0), OpId(4)}, {OpId(4), OpId(5)}};
  const std::vector<int64_t> times = {10, 30, 5, 100, 20, 1};
  const BranchCaptureTimes run = BranchCaptureRun(g, a, times);
  ASSERT_EQ(run.start_ns, (std::vector<int64_t>{0, 10, 40, 0, 100, 120}));
  const std::vector<int32_t> order = BranchCaptureOrder(g, a, times);
  ASSERT_EQ(order, (std::vector<int32_t>{0, 3, 1, 2, 4, 5}));
  EXPECT_EQ(ReleaseWaits(g, a, order, run.start_ns, run.end_ns), (std::vector<int64_t>{0, 5, 0, 20, 0, 0}));
  // A second reader of op 1 on stream 0 (op 5, captured last) moves its free to op 5's start: the wait
  // is op 5's own 1.
  g.edges.push_back({OpId(1), OpId(5)});
  EXPECT_EQ(ReleaseWaits(g, a, order, run.start_ns, run.end_ns), (std::vector<int64_t>{0, 1, 0, 20, 0, 0}));
  // An order or times that do not cover the graph: no waits.
  EXPECT_EQ(ReleaseWaits(g, a, {0, 3, 1, 2, 4}, run.start_ns, run.end_ns), std::vector<int64_t>(6, 0));
  EXPECT_EQ(ReleaseWaits(g, a, {0, 3, 1, 2, 4, 4}, run.start_ns, run.end_ns), std::vector<int64_t>(6, 0));
  EXPECT_EQ(ReleaseWaits(g, a, order, {}, run.end_ns), std::vector<int64_t>(6, 0));
}

// DelayedReleasePoints against its definition, by brute force, on random graphs, assignments (every
// cross-stream edge a sync), op times and delays.
TEST(DelayedReleasePointsTest, IsTheFirstOpOfTheStreamOrderedAfterEveryReaderAndDueOnRandomGraphs) {
  std::mt19937 rng(11);
  int found = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 25);
    const int streams = 1 + static_cast<int>(rng() % 4);
    std::vector<std::pair<int, int>> edges;
    for (int dst = 1; dst < n; ++dst) {
      for (int src = 0; src < dst; ++src) {
        if (rng() % 5 == 0) edges.emplace_back(src, dst);
      }
    }
    std::vector<int> assigned;
    for (int i = 0; i < n; ++i) assigned.push_back(static_cast<int>(rng() % streams));
    const OpGraph g = Ops(n, edges);
    StreamAssignment a = Streams(assigned, streams);
    for (const auto& [src, dst] : edges) {
      if (assigned[src] != assigned[dst]) a.syncs.push_back({OpId(src), OpId(dst)});
    }
    std::vector<int64_t> times;
    for (int i = 0; i < n; ++i) times.push_back(1 + static_cast<int64_t>(rng() % 20));
    const BranchCaptureTimes run = BranchCaptureRun(g, a, times);
    const int64_t delay = static_cast<int64_t>(rng() % 40);
    const std::vector<int64_t> points = DelayedReleasePoints(g, a, run.start_ns, run.end_ns, delay);
    ASSERT_EQ(points.size(), static_cast<size_t>(n));
    // after[x][y]: y is ordered after x by stream order and syncs (or is x).
    std::vector<std::vector<uint8_t>> after(n, std::vector<uint8_t>(n, 0));
    for (int x = n - 1; x >= 0; --x) {
      after[x][x] = 1;
      for (int y = x + 1; y < n; ++y) {
        const bool direct = assigned[x] == assigned[y] ||
                            std::any_of(a.syncs.begin(), a.syncs.end(), [&](const OpEdge& e) {
                              return e.src.value() == x && e.dst.value() == y;
                            });
        if (!direct) continue;
        for (int z = y; z < n; ++z) after[x][z] |= after[y][z];
      }
    }
    for (int op = 0; op < n; ++op) {
      int64_t due = run.end_ns[op];
      int last = op;
      std::vector<int> readers;
      for (const auto& [src, dst] : edges) {
        if (src == op) {
          readers.push_back(dst);
          due = std::max(due, run.end_ns[dst]);
          last = std::max(last, dst);
        }
      }
      due += delay;
      int64_t expected = -1;
      for (int q = last + 1; q < n && expected < 0; ++q) {
        if (assigned[q] != assigned[op] || run.start_ns[q] < due) continue;
        if (std::all_of(readers.begin(), readers.end(), [&](int r) { return after[r][q] != 0; })) expected = q;
      }
      EXPECT_EQ(points[op], expected) << "trial " << trial << " op " << op;
      found += expected >= 0 ? 1 : 0;
    }
  }
  EXPECT_GT(found, 100);  // the property was checked on points that exist, not only on -1
}

}  // namespace
}  // namespace nimble
