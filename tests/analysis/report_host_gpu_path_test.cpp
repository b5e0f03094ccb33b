// The report's host/GPU critical path: one per run and per iteration window, with or without an op
// graph, and its four figures among the stored metrics.
#include "nimble/analysis/report.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "trace_testing.h"

namespace nimble::analysis {
namespace {

// Two iterations marked "iter" of four launches 10 us apart (2 us each), each kernel 5 us after its
// launch; kernels take 4, 6, 3 and 2 us. The host is the bottleneck: 30 us of launching, 15 of GPU.
Trace LaunchBoundProgram() {
  Trace trace;
  const StringId iter = trace.strings.Intern("iter");
  const int64_t dur_ns[4] = {4000, 6000, 3000, 2000};
  int64_t correlation = 1;
  for (int64_t it = 0; it < 2; ++it) {
    const int64_t base = 100000 * it;
    trace.ranges.push_back({base, base + 100000, ThreadId(1), iter, StringId()});
    for (int64_t k = 0; k < 4; ++k) {
      const int64_t launch = base + 10000 * k;
      trace.api_calls.push_back(testing::LaunchCall(launch, launch + 2000, correlation));
      trace.kernels.push_back(testing::Kernel(launch + 5000, launch + 5000 + dur_ns[k], 7, correlation));
      ++correlation;
    }
  }
  return trace;
}

const Metric* Find(const std::vector<Metric>& metrics, const std::string& name, int32_t window) {
  const auto it = std::find_if(metrics.begin(), metrics.end(),
                               [&](const Metric& m) { return m.name == name && m.window == window; });
  return it == metrics.end() ? nullptr : &*it;
}

TEST(ReportHostGpuPathTest, EveryRunAndIterationHasAPathWithoutAnOpGraph) {
  const Trace trace = LaunchBoundProgram();
  ReportOptions options;
  options.iteration_range = "iter";
  auto report = BuildReport({&trace, nullptr, {}, nullptr}, options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_EQ(report->devices.size(), 1u);
  const DeviceReport& d = report->devices[0];
  EXPECT_FALSE(report->graph.has_value());
  ASSERT_EQ(d.iteration_paths.size(), d.iterations.size());
  ASSERT_EQ(d.iteration_paths.size(), 2u);
  // Iteration 2: from its start through four launches (2 us each, 8 us of CPU between them), the last
  // kernel's 3 us launch latency and its 2 us: 37 us, the host's 32.
  const TraceCriticalPath& second = d.iteration_paths[1];
  EXPECT_EQ(second.window, d.iterations[1].window);
  EXPECT_EQ(second.start_ns, 100000);
  EXPECT_EQ(second.end_ns, 137000);
  EXPECT_EQ(second.host_ns, 4 * 2000 + 3 * 8000);
  EXPECT_EQ(second.wait_ns, 3000);
  EXPECT_EQ(second.gpu_ns, 2000);
  EXPECT_EQ(second.segments, ComputeTraceCriticalPath(trace, DeviceId(0), d.iterations[1].window).segments);
  // The run's window is the GPU activity span, from the first kernel's start.
  EXPECT_EQ(d.run_path.window, d.run.window);
  EXPECT_EQ(d.run_path.start_ns, d.run.window.start_ns);
  EXPECT_EQ(d.run_path.end_ns, 137000);

  const std::vector<Metric> metrics = ReportMetrics(*report);
  for (int32_t window : {-1, 0, 1}) {
    const TraceCriticalPath& p = window < 0 ? d.run_path : d.iteration_paths[static_cast<size_t>(window)];
    SCOPED_TRACE("window " + std::to_string(window));
    const Metric* length = Find(metrics, "host_gpu_critical_path_ns", window);
    ASSERT_NE(length, nullptr);
    EXPECT_EQ(length->value, static_cast<double>(p.length_ns));
    EXPECT_EQ(length->unit, "ns");
    ASSERT_NE(Find(metrics, "host_gpu_critical_path_host_ns", window), nullptr);
    EXPECT_EQ(Find(metrics, "host_gpu_critical_path_host_ns", window)->value, static_cast<double>(p.host_ns));
    EXPECT_EQ(Find(metrics, "host_gpu_critical_path_gpu_ns", window)->value, static_cast<double>(p.gpu_ns));
    EXPECT_EQ(Find(metrics, "host_gpu_critical_path_wait_ns", window)->value, static_cast<double>(p.wait_ns));
  }
  EXPECT_EQ(Find(metrics, "host_gpu_critical_path_ns", 1)->value, 37000);
}

TEST(ReportHostGpuPathTest, ModelRunsKeepTheOpGraphPathBesideIt) {
  const Trace trace = LaunchBoundProgram();
  OpGraph graph;
  graph.ops.push_back({OpId(0), "a", "aten::relu", "", 1000});
  graph.ops.push_back({OpId(1), "b", "aten::relu", "", 2000});
  graph.edges = {{OpId(0), OpId(1)}};
  auto report = BuildReport({&trace, &graph, {}, nullptr}, {});
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_TRUE(report->graph.has_value());
  EXPECT_EQ(report->graph->critical_path.length_ns, 3000);
  ASSERT_EQ(report->devices.size(), 1u);
  EXPECT_TRUE(report->devices[0].iteration_paths.empty());  // no iteration range asked for
  EXPECT_FALSE(report->devices[0].run_path.empty());
  const std::vector<Metric> metrics = ReportMetrics(*report);
  EXPECT_NE(Find(metrics, "critical_path_ns", -1), nullptr);
  EXPECT_NE(Find(metrics, "host_gpu_critical_path_ns", -1), nullptr);
}

}  // namespace
}  // namespace nimble::analysis
