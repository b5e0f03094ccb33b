// Replay costs read from recorded graph replays: a chain gives same-stream gaps only, a chain of
// fork-join diamonds gives cross-stream gaps as well, the launch latency runs from the launch call to
// the first kernel, kernels outside graphs are ignored, and a trace without replays is NotFound.
#include <gtest/gtest.h>

#include "nimble/analysis/replay_costs.h"
#include "trace_testing.h"

namespace nimble::analysis {
namespace {

using testing::Kernel;
using testing::LaunchCall;

KernelRecord Replayed(int64_t start_ns, int64_t end_ns, int64_t stream, int64_t correlation) {
  KernelRecord k = Kernel(start_ns, end_ns, stream, correlation);
  k.graph_id = 5;
  return k;
}

TEST(ReplayCostsTest, ChainGivesNodeGapsAndLaunchLatency) {
  Trace trace;
  // Two replays of a 4-kernel chain: kernels of 2 us, 300 ns apart; launched 4 us before the first.
  for (int64_t r = 0; r < 2; ++r) {
    const int64_t base = r * 100'000, correlation = 10 + r;
    trace.api_calls.push_back(LaunchCall(base, base + 1'000, correlation));
    for (int64_t i = 0; i < 4; ++i) {
      const int64_t start = base + 4'000 + i * 2'300;
      trace.kernels.push_back(Replayed(start, start + 2'000, 1, correlation));
    }
  }
  trace.kernels.push_back(Kernel(500'000, 501'000, 1, 99));  // eager: not part of any replay
  StatusOr<ReplayCosts> costs = MeasureReplayCosts(trace);
  ASSERT_TRUE(costs.ok()) << costs.status().ToString();
  EXPECT_EQ(costs->replays, 2);
  EXPECT_EQ(costs->launch_ns, 4'000);
  EXPECT_EQ(costs->node_gap_ns, 300);
  EXPECT_EQ(costs->node_gaps, 6);
  EXPECT_EQ(costs->cross_stream_gaps, 0);
  EXPECT_EQ(costs->cross_stream_gap_ns, 0);
}

TEST(ReplayCostsTest, DiamondsGiveCrossStreamGaps) {
  Trace trace;
  // A on stream 1; B on stream 1 and C on stream 2 after it; then the next A after both. Same-stream
  // gaps are 300 ns, cross-stream ones 1.1 us; C ends last, so the next A waits across streams.
  int64_t t = 0;
  for (int i = 0; i < 3; ++i) {
    trace.kernels.push_back(Replayed(t, t + 1'000, 1, 7));                   // A
    trace.kernels.push_back(Replayed(t + 1'300, t + 2'300, 1, 7));           // B
    trace.kernels.push_back(Replayed(t + 2'100, t + 3'100, 2, 7));           // C
    t += 3'100 + 1'100;
  }
  StatusOr<ReplayCosts> costs = MeasureReplayCosts(trace);
  ASSERT_TRUE(costs.ok()) << costs.status().ToString();
  EXPECT_EQ(costs->node_gap_ns, 300);
  EXPECT_EQ(costs->node_gaps, 3);           // each B after its A
  EXPECT_EQ(costs->cross_stream_gap_ns, 1'100);
  EXPECT_EQ(costs->cross_stream_gaps, 5);   // each C after its A, each later A after a C
  EXPECT_EQ(costs->launch_ns, 0);           // no launch call recorded
}

TEST(ReplayCostsTest, AppliedToThePredictionWithACapturesMemsetNodes) {
  ReplayCosts costs;
  costs.launch_ns = 4000;
  costs.node_gap_ns = 300;
  costs.cross_stream_gap_ns = 1300;
  costs.fill_node_ns = 700;
  costs.memset_node_ns = 2200;
  PredictionOptions options;
  ApplyReplayCosts(costs, /*memset_nodes_replaced=*/6, /*memset_nodes_kept=*/2, &options);
  EXPECT_EQ(options.graph_launch_ns, 4000);
  EXPECT_EQ(options.graph_node_latency_ns, 300);
  EXPECT_EQ(options.sync_latency_ns, 1000);  // beyond the same-stream gap
  EXPECT_EQ(options.graph_extra_nodes_ns, 6 * 700 + 2 * 2200);
  costs.cross_stream_gap_ns = 200;  // measured below the same-stream gap: no extra delay
  ApplyReplayCosts(costs, 0, 0, &options);
  EXPECT_EQ(options.sync_latency_ns, 0);
  EXPECT_EQ(options.graph_extra_nodes_ns, 0);
}

TEST(ReplayCostsTest, NoReplaysIsNotFound) {
  Trace trace;
  trace.kernels.push_back(Kernel(0, 1'000));
  EXPECT_EQ(MeasureReplayCosts(trace).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace nimble::analysis
