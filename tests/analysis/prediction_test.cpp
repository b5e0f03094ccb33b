#include "nimble/analysis/prediction.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "dag_testing.h"
#include "nimble/analysis/stream_assignment.h"
#include "trace_testing.h"

namespace nimble::analysis {
namespace {

// Three ops, four kernels: op 0 launches kernels 0 and 1, op 1 kernel 2, op 2 kernel 3. Launch calls
// are 10 us apart. Kernel 3 also has a copy in a later iteration (kernel 4, attributed to op 2).
Trace SmallRun() {
  Trace t;
  t.devices = {testing::SmallGpu()};
  for (int64_t i = 0; i < 4; ++i) {
    t.kernels.push_back(testing::Kernel(100000 + 20000 * i, 110000 + 20000 * i, 7, i + 1));
    t.api_calls.push_back(testing::LaunchCall(10000 * i, 10000 * i + 3000, i + 1));
  }
  t.kernels[1].grid = {160, 1, 1};  // fills SmallGpu at 16 blocks of 128 threads per SM
  t.kernels.push_back(testing::Kernel(900000, 905000, 7, 99));
  return t;
}

std::vector<KernelAttribution> SmallAttribution() {
  return {{OpId(0), KernelIndex(0)}, {OpId(0), KernelIndex(1)}, {OpId(1), KernelIndex(2)},
          {OpId(2), KernelIndex(3)}, {OpId(2), KernelIndex(4)}};
}

TEST(PredictionTest, WorkloadGroupsKernelsByOpWithShares) {
  const Trace t = SmallRun();
  const auto attribution = SmallAttribution();
  auto w = BuildWorkload(t, 3, attribution, &t.devices[0], TimeWindow{0, 500000});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_EQ(w->op_kernels.size(), 3u);
  ASSERT_EQ(w->op_kernels[0].size(), 2u);
  EXPECT_EQ(w->op_kernels[0][0].dur_ns, 10000);
  EXPECT_DOUBLE_EQ(w->op_kernels[0][0].gpu_share, 1.0 / 160);
  EXPECT_DOUBLE_EQ(w->op_kernels[0][1].gpu_share, 1.0);
  EXPECT_EQ(w->op_kernels[2].size(), 1u);  // kernel 4 lies outside the window
  EXPECT_EQ(w->launch_gap_ns, 10000);
}

TEST(PredictionTest, WithoutDeviceLimitsEveryKernelFillsTheGpu) {
  const Trace t = SmallRun();
  auto w = BuildWorkload(t, 3, SmallAttribution(), nullptr, std::nullopt);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->op_kernels[2].size(), 2u);
  for (const auto& op : w->op_kernels) {
    for (const SimKernel& k : op) EXPECT_DOUBLE_EQ(k.gpu_share, 1.0);
  }
}

TEST(PredictionTest, BadAttributionNamesOpAndKernel) {
  const Trace t = SmallRun();
  const std::vector<KernelAttribution> bad_op{{OpId(5), KernelIndex(0)}};
  auto a = BuildWorkload(t, 3, bad_op, nullptr, std::nullopt);
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("op 5"), std::string::npos);
  const std::vector<KernelAttribution> bad_kernel{{OpId(1), KernelIndex(50)}};
  auto b = BuildWorkload(t, 3, bad_kernel, nullptr, std::nullopt);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("kernel 50"), std::string::npos);
}

TEST(PredictionTest, EagerLaunchGapPrefersOptionThenMeasurementThenFallback) {
  Workload w;
  PredictionOptions options;
  EXPECT_EQ(EagerCosts(w, options).host_per_kernel_ns, options.fallback_launch_gap_ns);
  w.launch_gap_ns = 7000;
  EXPECT_EQ(EagerCosts(w, options).host_per_kernel_ns, 7000);
  options.eager_launch_gap_ns = 3000;
  EXPECT_EQ(EagerCosts(w, options).host_per_kernel_ns, 3000);
  EXPECT_EQ(GraphReplayCosts(options).gpu_per_kernel_ns, options.graph_node_latency_ns);
}

TEST(PredictionTest, WorkloadFromOpTimes) {
  OpGraph g;
  g.ops = {{OpId(0), "a", "k", "", 500}, {OpId(1), "b", "k", "", 0}};
  const Workload w = WorkloadFromOpTimes(g);
  ASSERT_EQ(w.op_kernels.size(), 2u);
  EXPECT_EQ(w.op_kernels[0][0].dur_ns, 500);
  EXPECT_TRUE(w.op_kernels[1].empty());
}

// Four small independent branches between a fork and a join, launched 20 us apart in eager mode.
TEST(PredictionTest, GraphReplayAndStreamsEachHelpABranchyGraph) {
  const Dag dag = testing::MustBuild(6, {{OpId(0), OpId(1)}, {OpId(0), OpId(2)}, {OpId(0), OpId(3)}, {OpId(0), OpId(4)},
                                         {OpId(1), OpId(5)}, {OpId(2), OpId(5)}, {OpId(3), OpId(5)}, {OpId(4), OpId(5)}});
  Workload w;
  w.op_kernels.assign(6, {{50000, 0.1}});
  w.launch_gap_ns = 20000;
  auto p = Predict(dag, w, AssignStreams(dag));
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->launch_gap_ns, 20000);
  EXPECT_EQ(p->eager_ns, 20000 + 6 * 50000);  // GPU-bound once the first launch is done
  EXPECT_LT(p->aot_single_ns, p->eager_ns);
  EXPECT_LT(p->aot_multi_ns, p->aot_single_ns);
  EXPECT_NEAR(static_cast<double>(p->aot_single_ns) / static_cast<double>(p->aot_multi_ns), 2.0, 0.2);
}

// A grid of 200 blocks on 160 slots fills them all in its first wave and a quarter in its second: the
// workload keeps both shares, and the in-order model runs two such kernels side by side on their wave
// shares where the shared one, on block slots, serialises them.
TEST(PredictionTest, InOrderPredictionsUseTheSharesAveragedOverWaves) {
  Trace t = SmallRun();
  t.kernels[2].grid = {200, 1, 1};
  auto w = BuildWorkload(t, 3, SmallAttribution(), &t.devices[0], TimeWindow{0, 500000});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_DOUBLE_EQ(w->op_kernels[1][0].gpu_share, 1.0);
  EXPECT_DOUBLE_EQ(w->op_kernels[1][0].wave_share, 200.0 / 320);

  const Dag dag = testing::MustBuild(2, {});
  Workload two;
  two.op_kernels.assign(2, {SimKernel{100000, 1.0, 0.5}});
  StreamAssignment multi = AssignStreams(dag);
  ASSERT_EQ(multi.num_streams, 2);
  PredictionOptions options;
  options.graph_launch_ns = 0;
  options.graph_node_latency_ns = 0;
  EXPECT_EQ(PredictMultiStream(dag, two, multi, options).value(), 200000);
  options.sharing = SharingModel{0, 1, "", Dispatch::kInOrder};
  EXPECT_EQ(PredictMultiStream(dag, two, multi, options).value(), 100000);
}

// The branchy graph again, its single-stream replay measured 20 % faster than its recorded kernels say:
// every kernel shrinks by one factor, the replay costs stay, and the anchored workload predicts the
// measured single-stream replay to the nanosecond per kernel (rounding) and a multi-stream one whose
// kernel time shrank alike.
TEST(PredictionTest, AnchoringScalesTheKernelsToTheMeasuredSingleStreamReplay) {
  const Dag dag = testing::MustBuild(6, {{OpId(0), OpId(1)}, {OpId(0), OpId(2)}, {OpId(0), OpId(3)}, {OpId(0), OpId(4)},
                                         {OpId(1), OpId(5)}, {OpId(2), OpId(5)}, {OpId(3), OpId(5)}, {OpId(4), OpId(5)}});
  Workload w;
  w.op_kernels.assign(6, {{50000, 0.1}, {10001, 0.1}});
  PredictionOptions options;
  options.graph_launch_ns = 7000;
  options.graph_node_latency_ns = 300;
  options.sync_latency_ns = 200;
  const StreamAssignment multi = AssignStreams(dag);
  auto before = Predict(dag, w, multi, options);
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  const int64_t kernels_ns = 6 * 60001;
  const int64_t costs_ns = before->aot_single_ns - kernels_ns;
  EXPECT_EQ(costs_ns, 7000 + 12 * 300);
  const int64_t measured = costs_ns + kernels_ns * 8 / 10;  // 288004 ns of kernels

  auto anchored = AnchorToSingleStream(dag, w, options, measured);
  ASSERT_TRUE(anchored.ok()) << anchored.status().ToString();
  EXPECT_DOUBLE_EQ(anchored->scale, 288004.0 / 360006.0);
  EXPECT_EQ(anchored->workload.op_kernels[0][0].dur_ns, 40000);
  EXPECT_EQ(anchored->workload.op_kernels[0][1].dur_ns, 8001);  // 8000.78, rounded
  EXPECT_DOUBLE_EQ(anchored->workload.op_kernels[0][0].gpu_share, 0.1);
  auto after = Predict(dag, anchored->workload, multi, options);
  ASSERT_TRUE(after.ok());
  EXPECT_LE(std::abs(after->aot_single_ns - measured), 12);
  EXPECT_LT(after->aot_multi_ns, before->aot_multi_ns);
  EXPECT_GT(after->aot_multi_ns, before->aot_multi_ns * 7 / 10);

  // Measured as predicted: nothing changes.
  auto same = AnchorToSingleStream(dag, w, options, before->aot_single_ns);
  ASSERT_TRUE(same.ok());
  EXPECT_DOUBLE_EQ(same->scale, 1.0);
  for (size_t op = 0; op < w.op_kernels.size(); ++op) {
    for (size_t k = 0; k < w.op_kernels[op].size(); ++k) {
      EXPECT_EQ(same->workload.op_kernels[op][k].dur_ns, w.op_kernels[op][k].dur_ns);
    }
  }
}

// A capture's memset nodes (graph_extra_nodes_ns) cost every replay once, on one stream and on several,
// not the eager run; anchoring leaves them out of what it scales.
TEST(PredictionTest, MemsetNodesAddToEachReplayOnceAndAreNotScaled) {
  const Dag dag = testing::MustBuild(6, {{OpId(0), OpId(1)}, {OpId(0), OpId(2)}, {OpId(0), OpId(3)}, {OpId(0), OpId(4)},
                                         {OpId(1), OpId(5)}, {OpId(2), OpId(5)}, {OpId(3), OpId(5)}, {OpId(4), OpId(5)}});
  Workload w;
  w.op_kernels.assign(6, {{50000, 0.1}});
  w.launch_gap_ns = 20000;
  PredictionOptions options;
  options.graph_node_latency_ns = 300;
  const StreamAssignment multi = AssignStreams(dag);
  auto without = Predict(dag, w, multi, options);
  ASSERT_TRUE(without.ok()) << without.status().ToString();
  options.graph_extra_nodes_ns = 6 * 700;
  auto with = Predict(dag, w, multi, options);
  ASSERT_TRUE(with.ok());
  EXPECT_EQ(with->aot_single_ns - without->aot_single_ns, 6 * 700);
  EXPECT_EQ(with->aot_multi_ns - without->aot_multi_ns, 6 * 700);
  EXPECT_EQ(with->eager_ns, without->eager_ns);
  // Measured as predicted with the memset nodes: the kernels are not stretched to cover them.
  auto anchored = AnchorToSingleStream(dag, w, options, with->aot_single_ns);
  ASSERT_TRUE(anchored.ok());
  EXPECT_DOUBLE_EQ(anchored->scale, 1.0);
}

// Random DAGs and kernels, a measurement anywhere the factor allows: the anchored kernels predict the
// measured single-stream replay to within the rounding of each kernel, and the multi-stream prediction moves
// the same way as the factor.
TEST(PredictionTest, AnchoredKernelsPredictTheMeasuredReplayOnRandomGraphs) {
  std::mt19937_64 rng(20261128);
  for (int trial = 0; trial < 200; ++trial) {
    const int32_t n = 2 + static_cast<int32_t>(rng() % 30);
    const Dag dag = testing::MustBuild(n, testing::RandomDagEdges(rng, n, 0.2));
    Workload w;
    int64_t kernels = 0;
    for (int32_t v = 0; v < n; ++v) {
      w.op_kernels.emplace_back(rng() % 3);
      for (SimKernel& k : w.op_kernels.back()) {
        k = {static_cast<int64_t>(1000 + rng() % 100000), 0.05 + 0.01 * static_cast<double>(rng() % 90)};
        ++kernels;
      }
    }
    PredictionOptions options;
    options.graph_launch_ns = static_cast<int64_t>(rng() % 10000);
    options.graph_node_latency_ns = static_cast<int64_t>(rng() % 1000);
    options.sync_latency_ns = static_cast<int64_t>(rng() % 500);
    const StreamAssignment multi = AssignStreams(dag);
    auto before = Predict(dag, w, multi, options);
    ASSERT_TRUE(before.ok());
    int64_t kernel_ns = 0;
    for (const auto& op : w.op_kernels) {
      for (const SimKernel& k : op) kernel_ns += k.dur_ns;
    }
    const double scale = 0.5 + 1.5 * static_cast<double>(rng() % 1001) / 1000;
    const int64_t measured = before->aot_single_ns - kernel_ns + std::llround(static_cast<double>(kernel_ns) * scale);
    auto anchored = AnchorToSingleStream(dag, w, options, measured);
    if (kernel_ns == 0) {
      EXPECT_FALSE(anchored.ok());
      continue;
    }
    ASSERT_TRUE(anchored.ok()) << "trial " << trial << ": " << anchored.status().ToString();
    auto after = Predict(dag, anchored->workload, multi, options);
    ASSERT_TRUE(after.ok());
    EXPECT_LE(std::abs(after->aot_single_ns - measured), kernels / 2 + 1) << "trial " << trial;
    if (anchored->scale > 1.001) {
      EXPECT_GE(after->aot_multi_ns, before->aot_multi_ns) << "trial " << trial;
    }
    if (anchored->scale < 0.999) {
      EXPECT_LE(after->aot_multi_ns, before->aot_multi_ns) << "trial " << trial;
    }
  }
}

TEST(PredictionTest, AnchoringRefusesAMeasurementTheKernelsCannotExplain) {
  const Dag dag = testing::MustBuild(2, {{OpId(0), OpId(1)}});
  Workload w;
  w.op_kernels.assign(2, {{100000, 1.0}});
  PredictionOptions options;
  options.graph_launch_ns = 5000;
  options.graph_node_latency_ns = 0;
  EXPECT_EQ(AnchorToSingleStream(dag, w, options, 0).status().code(), StatusCode::kInvalidArgument);
  auto no_time = AnchorToSingleStream(dag, w, options, 4000);  // less than the launch alone
  ASSERT_FALSE(no_time.ok());
  EXPECT_EQ(no_time.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(no_time.status().message().find("no time for the kernels"), std::string::npos) << no_time.status().message();
  auto too_slow = AnchorToSingleStream(dag, w, options, 5000 + 200000 * 2 + 1000);
  ASSERT_FALSE(too_slow.ok());
  EXPECT_NE(too_slow.status().message().find("outside 0.5-2x"), std::string::npos) << too_slow.status().message();
  EXPECT_FALSE(AnchorToSingleStream(dag, w, options, 5000 + 200000 / 2 - 1000).ok());
  EXPECT_TRUE(AnchorToSingleStream(dag, w, options, 5000 + 200000 * 2).ok());  // the bounds themselves hold
  EXPECT_TRUE(AnchorToSingleStream(dag, w, options, 5000 + 200000 / 2).ok());
  Workload empty;
  empty.op_kernels.assign(2, {});
  EXPECT_EQ(AnchorToSingleStream(dag, empty, options, 10000).status().code(), StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace nimble::analysis
