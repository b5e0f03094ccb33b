#include "nimble/analysis/simulator.h"

#include <gtest/gtest.h>

#include <random>

#include "dag_testing.h"
#include "nimble/analysis/critical_path.h"
#include "nimble/analysis/stream_assignment.h"

namespace nimble::analysis {
namespace {

using Kernels = std::vector<std::vector<SimKernel>>;

// Graph replay as the predictor uses it.
LaunchCosts Replay() {
  LaunchCosts c;
  c.start_ns = 5000;
  c.gpu_per_kernel_ns = 1000;
  c.sync_latency_ns = 1000;
  return c;
}

int64_t Latency(const Dag& dag, const Kernels& kernels, const StreamAssignment& s, const LaunchCosts& c) {
  auto r = Simulate(dag, kernels, s, c);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? r->latency_ns : -1;
}

// Op 0 on stream 0, op 1 on stream 1.
StreamAssignment TwoStreams() {
  StreamAssignment two;
  two.op_stream = {StreamId(0), StreamId(1)};
  two.num_streams = 2;
  return two;
}

double MultiStreamSpeedup(const Dag& dag, const Kernels& kernels) {
  const double single = static_cast<double>(Latency(dag, kernels, SingleStream(dag), Replay()));
  const double multi = static_cast<double>(Latency(dag, kernels, AssignStreams(dag), Replay()));
  return single / multi;
}

TEST(SimulatorTest, ChainGainsNothingFromStreams) {
  std::vector<OpEdge> edges;
  for (int32_t i = 0; i + 1 < 8; ++i) edges.push_back({OpId(i), OpId(i + 1)});
  const Dag dag = testing::MustBuild(8, edges);
  const Kernels kernels(8, {{100000, 0.05}});
  EXPECT_NEAR(MultiStreamSpeedup(dag, kernels), 1.0, 1e-9);
}

TEST(SimulatorTest, IndependentSmallKernelsRunSideBySide) {
  for (int32_t k : {2, 4, 8}) {
    const Dag dag = testing::MustBuild(k, {});
    const Kernels kernels(static_cast<size_t>(k), {{100000, 0.05}});
    EXPECT_NEAR(MultiStreamSpeedup(dag, kernels), k, 0.1 * k) << k;
  }
}

TEST(SimulatorTest, IndependentKernelsThatFillTheGpuDoNot) {
  for (int32_t k : {2, 4, 8}) {
    const Dag dag = testing::MustBuild(k, {});
    const Kernels kernels(static_cast<size_t>(k), {{100000, 1.0}});
    EXPECT_NEAR(MultiStreamSpeedup(dag, kernels), 1.0, 0.05) << k;
  }
}

// A damaged recording once gave one kernel a duration with a flipped high bit: next to it, the other
// kernels' steps vanished in a double's rounding and the simulation never ended. It must end, with a
// latency that still contains the huge kernel.
TEST(SimulatorTest, HugeKernelBesideTinyOnesStillEnds) {
  const Dag dag = testing::MustBuild(3, {});
  const int64_t huge = int64_t{1} << 62;  // a double resolves 1024 ns steps there
  // Under in-order dispatch a huge kernel that fills the GPU makes the others wait for it.
  for (const double huge_share : {0.5, 1.0}) {
    const Kernels kernels = {{{huge, huge_share}}, {{3, 0.4}, {7, 0.3}}, {{1, 0.9}}};
    for (const Dispatch dispatch : {Dispatch::kShared, Dispatch::kInOrder}) {
      for (const StreamAssignment& s : {SingleStream(dag), AssignStreams(dag)}) {
        auto r = Simulate(dag, kernels, s, Replay(), dispatch);
        ASSERT_TRUE(r.ok()) << r.status().ToString();
        EXPECT_GE(r->latency_ns, huge);
      }
    }
  }
}

TEST(SimulatorTest, ProcessorSharingSlowsOversubscribedKernels) {
  const Dag dag = testing::MustBuild(2, {});
  const Kernels kernels{{{100, 0.75}}, {{100, 0.75}}};
  const StreamAssignment two = TwoStreams();
  // Demand 1.5: each runs at 2/3 speed, both end at 150.
  auto r = Simulate(dag, kernels, two, LaunchCosts{});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->latency_ns, 150);
  EXPECT_EQ(r->max_running_kernels, 2);
  EXPECT_EQ(r->op_end_ns, (std::vector<int64_t>{150, 150}));
}

// In order, the kernel that started first keeps its share; the second gets what is left and speeds up to
// its own share when the first ends.
TEST(SimulatorTest, InOrderDispatchServesTheKernelThatStartedFirst) {
  const Dag dag = testing::MustBuild(2, {});
  const Kernels kernels{{{100, 0.75}}, {{100, 0.75}}};
  const StreamAssignment two = TwoStreams();
  LaunchCosts costs;
  auto r = Simulate(dag, kernels, two, costs, Dispatch::kInOrder);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // Op 0 runs alone at full speed to 100; op 1 gets 0.25 of its 0.75 (a third of its speed) until then,
  // 33.3 of its 100 done, and the rest at full speed: it ends at 166.7. Total work is capped as before.
  EXPECT_EQ(r->op_end_ns, (std::vector<int64_t>{100, 167}));
  EXPECT_EQ(r->latency_ns, 167);
  // A kernel that finds the GPU full waits, and the shared dispatch of the same kernels is unchanged.
  const Kernels full{{{100, 1.0}}, {{50, 1.0}}};
  auto waits = Simulate(dag, full, two, costs, Dispatch::kInOrder);
  ASSERT_TRUE(waits.ok());
  EXPECT_EQ(waits->op_end_ns, (std::vector<int64_t>{100, 150}));
  EXPECT_EQ(Simulate(dag, kernels, two, costs).value().latency_ns, 150);
}

TEST(SimulatorTest, EagerLaunchesAreSerialOnTheHost) {
  const Dag dag = testing::MustBuild(10, {});
  const Kernels kernels(10, {{1000, 0.01}});
  LaunchCosts eager;
  eager.host_per_kernel_ns = 20000;
  // Host-bound: the last launch ends at 10 * 20 us, its kernel takes 1 us more.
  EXPECT_EQ(Latency(dag, kernels, SingleStream(dag), eager), 201000);
}

TEST(SimulatorTest, CrossStreamSyncsCostLatencyAndHostTime) {
  const Dag dag = testing::MustBuild(3, {{OpId(0), OpId(1)}, {OpId(0), OpId(2)}});
  const Kernels kernels(3, {{1000, 0.1}});
  const StreamAssignment a = AssignStreams(dag);  // 0 -> 1 on one stream, 2 on another after a sync
  ASSERT_EQ(a.syncs.size(), 1u);
  LaunchCosts c;
  c.sync_latency_ns = 500;
  auto r = Simulate(dag, kernels, a, c);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->op_start_ns[2], 1500);
  EXPECT_EQ(r->latency_ns, 2500);
  c.host_per_event_ns = 10000;  // record after op 0, wait before op 2: both on the host
  EXPECT_EQ(Latency(dag, kernels, a, c), 20000 + 1000);
}

TEST(SimulatorTest, OpsWithoutKernelsPassThrough) {
  const Dag dag = testing::MustBuild(3, {{OpId(0), OpId(1)}, {OpId(1), OpId(2)}});
  const Kernels kernels{{{100, 1.0}}, {}, {{100, 1.0}, {50, 1.0}}};
  auto r = Simulate(dag, kernels, SingleStream(dag), LaunchCosts{});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->latency_ns, 250);
  EXPECT_EQ(r->op_start_ns[2], 100);
  EXPECT_EQ(r->op_end_ns[2], 250);
}

// Three kernels: when the first ends, the second, started before the third, is served first. Order
// kept by start, not by the position a removal leaves.
TEST(SimulatorTest, InOrderDispatchKeepsTheStartOrderWhenAKernelEnds) {
  const Dag dag = testing::MustBuild(3, {});
  const Kernels kernels{{{50, 0.2}}, {{100, 0.6}}, {{100, 0.6}}};
  StreamAssignment three;
  three.op_stream = {StreamId(0), StreamId(1), StreamId(2)};
  three.num_streams = 3;
  auto r = Simulate(dag, kernels, three, LaunchCosts{}, Dispatch::kInOrder);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // To 50: ops 0 and 1 at full speed, op 2 gets 0.2 of its 0.6 (16.7 of 100 done). Then op 1 keeps its
  // 0.6 and ends at 100; op 2 gets 0.4 (33.3 more done) and, alone from 100, ends at 150. Serving op 2
  // first after op 0 ended would end op 1 at 125 and op 2 at 133.
  EXPECT_EQ(r->op_end_ns, (std::vector<int64_t>{50, 100, 150}));
}

// Under either dispatch; the GPU's work (duration times share) bounds the multi-stream latency too.
TEST(SimulatorTest, RandomDagsNeverBeatTheCriticalPathOrLoseToOneStream) {
  std::mt19937_64 rng(71);
  for (int trial = 0; trial < 200; ++trial) {
    const int32_t n = 1 + static_cast<int32_t>(rng() % 30);
    const Dag dag = testing::MustBuild(n, testing::RandomDagEdges(rng, n, 0.15));
    Kernels kernels(static_cast<size_t>(n));
    for (auto& k : kernels) k.push_back({static_cast<int64_t>(1000 + rng() % 100000), 0.01 + 0.99 * (rng() % 100) / 100.0});
    const int64_t single = Latency(dag, kernels, SingleStream(dag), LaunchCosts{});
    int64_t total = 0;
    double work = 0;
    std::vector<int64_t> weights;
    for (const auto& k : kernels) {
      total += k[0].dur_ns;
      work += static_cast<double>(k[0].dur_ns) * k[0].gpu_share;
      weights.push_back(k[0].dur_ns);
    }
    EXPECT_EQ(single, total);
    for (Dispatch dispatch : {Dispatch::kShared, Dispatch::kInOrder}) {
      auto run = Simulate(dag, kernels, AssignStreams(dag), LaunchCosts{}, dispatch);
      ASSERT_TRUE(run.ok()) << run.status().ToString();
      const int64_t multi = run->latency_ns;
      EXPECT_LE(multi, single + 1) << DispatchName(dispatch);
      EXPECT_GE(multi + 1, ComputeCriticalPath(dag, weights)->length_ns) << DispatchName(dispatch);
      EXPECT_GE(static_cast<double>(multi) + 1, work) << DispatchName(dispatch);
    }
  }
}

TEST(SimulatorTest, RejectsInvalidInputsNamingTheOp) {
  const Dag dag = testing::MustBuild(2, {{OpId(0), OpId(1)}});
  const Kernels kernels(2, {{10, 1.0}});
  EXPECT_FALSE(Simulate(dag, Kernels(1), SingleStream(dag), LaunchCosts{}).ok());
  StreamAssignment bad = SingleStream(dag);
  bad.op_stream[1] = StreamId(4);
  auto r = Simulate(dag, kernels, bad, LaunchCosts{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("op 1"), std::string::npos);
  StreamAssignment backwards{{StreamId(0), StreamId(1)}, 2, {{OpId(1), OpId(0)}}};
  EXPECT_FALSE(Simulate(dag, kernels, backwards, LaunchCosts{}).ok());
  EXPECT_FALSE(Simulate(dag, Kernels{{{10, 1.5}}, {}}, SingleStream(dag), LaunchCosts{}).ok());
  EXPECT_FALSE(Simulate(dag, Kernels{{{10, 0.5, -1, 0.9}}, {}}, SingleStream(dag), LaunchCosts{}).ok());
}

// A crowded kernel runs slower only while another kernel runs, and takes no more of the GPU for it: two
// small crowded kernels side by side each take 1.5x their time; one alone, or on one stream, its own.
TEST(SimulatorTest, CrowdedKernelsSlowOnlyBesideOthers) {
  const Dag dag = testing::MustBuild(2, {});
  const Kernels crowded(2, {{100000, 0.1, -1, 1.5}});
  LaunchCosts none;
  EXPECT_EQ(Latency(dag, crowded, TwoStreams(), none), 150000);
  EXPECT_EQ(Latency(dag, crowded, SingleStream(dag), none), 200000);
  const Kernels one_crowded{{{100000, 0.1, -1, 1.5}}, {{50000, 0.1}}};
  // Side by side for 50 us (the crowded one at 1/1.5 of its speed), then alone at full speed.
  EXPECT_NEAR(Latency(dag, one_crowded, TwoStreams(), none), 50000 + (100000 - 50000 / 1.5), 1);
}

}  // namespace
}  // namespace nimble::analysis
