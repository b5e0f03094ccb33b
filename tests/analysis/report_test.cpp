#include "nimble/analysis/report.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "trace_testing.h"

namespace nimble::analysis {
namespace {

// Diamond a -> {b, c} -> d, eager on one stream for two iterations marked "iter". Each iteration launches
// its four kernels 10 us apart; kernels take 4, 6, 3 and 2 us.
struct Fixture {
  Trace trace;
  OpGraph graph;
  std::vector<KernelAttribution> attribution;
};

Fixture Diamond() {
  Fixture f;
  for (const char* name : {"a", "b", "c", "d"}) {
    f.graph.ops.push_back({OpId(static_cast<int32_t>(f.graph.ops.size())), name, "aten::relu", "", 0});
  }
  f.graph.edges = {{OpId(0), OpId(1)}, {OpId(0), OpId(2)}, {OpId(1), OpId(3)}, {OpId(2), OpId(3)}};
  f.trace.devices = {testing::SmallGpu()};
  const StringId iter = f.trace.strings.Intern("iter");
  const int64_t dur_ns[4] = {4000, 6000, 3000, 2000};
  int64_t correlation = 1;
  for (int64_t it = 0; it < 2; ++it) {
    const int64_t base = 100000 * it;
    f.trace.ranges.push_back({base, base + 100000, ThreadId(1), iter, StringId()});
    for (int32_t op = 0; op < 4; ++op) {
      const int64_t launch = base + 10000 * op;
      f.trace.api_calls.push_back(testing::LaunchCall(launch, launch + 2000, correlation));
      f.trace.kernels.push_back(testing::Kernel(launch + 5000, launch + 5000 + dur_ns[op], 7, correlation));
      f.attribution.push_back({OpId(op), KernelIndex(static_cast<int64_t>(f.trace.kernels.size()) - 1)});
      ++correlation;
    }
  }
  return f;
}

const Metric* Find(const std::vector<Metric>& metrics, const std::string& name, int32_t window) {
  const auto it = std::find_if(metrics.begin(), metrics.end(),
                               [&](const Metric& m) { return m.name == name && m.window == window; });
  return it == metrics.end() ? nullptr : &*it;
}

TEST(ReportTest, FullReportOfAProfiledModel) {
  const Fixture f = Diamond();
  ReportOptions options;
  options.iteration_range = "iter";
  auto report = BuildReport({&f.trace, &f.graph, f.attribution, nullptr}, options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_EQ(report->devices.size(), 1u);
  const DeviceReport& d = report->devices[0];
  EXPECT_EQ(d.run.active_ns, 2 * 15000);
  ASSERT_EQ(d.iterations.size(), 2u);
  EXPECT_EQ(d.iterations[1].window, (TimeWindow{100000, 200000}));
  EXPECT_EQ(d.iterations[1].active_ns, 15000);
  // Kernels b and d waited for their launch calls (6 + 7 us); a and c were launched before the GPU
  // ran dry (5 + 4 us), and the 63 us after d had nothing to wait for.
  EXPECT_EQ(d.iterations[1].idle_by_cause.dur_ns_of(GapCause::kHostLaunchLate), 6000 + 7000);
  EXPECT_EQ(d.iterations[1].idle_by_cause.dur_ns_of(GapCause::kOther), 5000 + 4000 + 63000);
  ASSERT_TRUE(report->graph.has_value());
  const GraphReport& g = *report->graph;
  EXPECT_EQ(g.op_time_ns, (std::vector<int64_t>{4000, 6000, 3000, 2000}));
  EXPECT_EQ(g.critical_path.length_ns, 12000);
  EXPECT_EQ(g.critical_path.ops, (std::vector<OpId>{OpId(0), OpId(1), OpId(3)}));
  EXPECT_DOUBLE_EQ(g.critical_path_ratio, 12000.0 / 15000.0);
  EXPECT_EQ(g.concurrency.width, 2);
  EXPECT_EQ(g.assignment.num_streams, 2);
  EXPECT_EQ(static_cast<int64_t>(g.assignment.syncs.size()), g.reduced_edges - g.matched_edges);
  ASSERT_TRUE(report->prediction.has_value());
  const PredictionReport& p = *report->prediction;
  EXPECT_EQ(p.measured_ns, 100000);
  EXPECT_EQ(p.predicted.launch_gap_ns, 10000);
  EXPECT_GT(p.speedup_aot_single, 1.0);
  EXPECT_GE(p.speedup_aot_multi, p.speedup_aot_single);
}

TEST(ReportTest, MetricsAndSpeedupsForTheStore) {
  const Fixture f = Diamond();
  ReportOptions options;
  options.iteration_range = "iter";
  auto report = BuildReport({&f.trace, &f.graph, f.attribution, nullptr}, options);
  ASSERT_TRUE(report.ok());
  const std::vector<Metric> metrics = ReportMetrics(*report);
  ASSERT_NE(Find(metrics, "gpu_active_ns", -1), nullptr);
  EXPECT_EQ(Find(metrics, "gpu_active_ns", -1)->value, 30000);
  EXPECT_EQ(Find(metrics, "gpu_active_ns", 1)->value, 15000);
  EXPECT_EQ(Find(metrics, "gpu_active_ns", 1)->unit, "ns");
  EXPECT_NE(Find(metrics, "idle_host_launch_late_ns", 0), nullptr);
  EXPECT_NE(Find(metrics, "stream_7_busy_ns", -1), nullptr);
  EXPECT_EQ(Find(metrics, "logical_concurrency", -1)->value, 2);
  EXPECT_EQ(Find(metrics, "sync_count", -1)->value, 2);
  EXPECT_EQ(Find(metrics, "measured_latency_ns", -1)->value, 100000);
  const std::vector<Speedup> speedups = ReportSpeedups(*report);
  ASSERT_EQ(speedups.size(), 3u);
  EXPECT_EQ(speedups[0].mode, RunMode::kEager);
  EXPECT_DOUBLE_EQ(speedups[0].measured_ms, 0.1);
  EXPECT_EQ(speedups[2].mode, RunMode::kAotMulti);
  EXPECT_DOUBLE_EQ(speedups[2].baseline_ms, 0.1);
  EXPECT_GT(speedups[2].predicted_ms, 0);
}

TEST(ReportTest, PlainProgramGetsOnlyTheTimeline) {
  const Fixture f = Diamond();
  auto report = BuildReport({&f.trace, nullptr, {}, nullptr});
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->devices.size(), 1u);
  EXPECT_TRUE(report->devices[0].iterations.empty());
  EXPECT_FALSE(report->graph.has_value());
  EXPECT_FALSE(report->prediction.has_value());
  EXPECT_TRUE(ReportSpeedups(*report).empty());
  EXPECT_LE(report->devices[0].longest_gaps.size(), 10u);
  EXPECT_NE(Find(ReportMetrics(*report), "active_ratio", -1), nullptr);
}

TEST(ReportTest, GraphWithoutAttributionUsesOpTimes) {
  Fixture f = Diamond();
  for (Op& op : f.graph.ops) op.gpu_time_ns = 1000 * (op.id.value() + 1);
  auto report = BuildReport({&f.trace, &f.graph, {}, nullptr});
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->graph->critical_path.length_ns, 1000 + 3000 + 4000);
  EXPECT_EQ(report->prediction->measured_ns, report->devices[0].run.window.dur_ns());
}

TEST(ReportTest, CyclicGraphIsAnErrorNamingTheOps) {
  Fixture f = Diamond();
  f.graph.edges.push_back({OpId(3), OpId(0)});
  auto report = BuildReport({&f.trace, &f.graph, f.attribution, nullptr});
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.status().message().find("op graph: cycle"), std::string::npos) << report.status().message();
  EXPECT_NE(report.status().message().find("'d' -> 'a'"), std::string::npos) << report.status().message();
}

TEST(ReportTest, MissingTraceIsAnError) { EXPECT_FALSE(BuildReport({}).ok()); }

}  // namespace
}  // namespace nimble::analysis
