// The viewer's critical path through host and GPU against analysis::BuildReport on random runs without
// an op graph (same segments, records and split; its band under exactly those segments), none for a
// model run (whose op-graph path stays), and the limit past which the viewer leaves it to the report.
#include "nimble/gui/host_gpu_path.h"

#include <gtest/gtest.h>

#include <array>
#include <filesystem>

#include "gui_test_runs.h"
#include "nimble/analysis/report.h"
#include "nimble/gui/run_loader.h"
#include "nimble/gui/run_overview.h"
#include "nimble/store/run_reader.h"

namespace nimble::gui {
namespace {

namespace fs = std::filesystem;

class HostGpuPathTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::MakeScratchDir("host_gpu_path"); }
  void TearDown() override { fs::remove_all(dir_); }
  std::string dir_;
};

// A random run without its op graph, plus synchronizations whose calls and records say what they
// waited for (the random runs' own syncs name no call): after some launches, on the launching thread,
// a stream sync that returns after the kernel, and before some, a stream wait on an event.
testing::RandomRun ProgramRun(std::mt19937_64& rng, int kernels) {
  testing::RandomRun run = testing::MakeRandomRun(rng, kernels);
  run.graph = {};
  run.attribution.clear();
  Trace& t = run.trace;
  const StringId sync = t.strings.Intern("cudaStreamSynchronize");
  const StringId wait = t.strings.Intern("cudaStreamWaitEvent");
  const size_t launches = t.api_calls.size();
  int64_t correlation = 900'000;
  auto add = [&](int64_t start, int64_t end, ThreadId thread, StringId name, SyncKind kind, StreamId stream) {
    t.api_calls.push_back({start, end, ApiKind::kRuntime, thread, 1, CorrelationId(++correlation), name, 1, 0});
    SyncRecord s;
    s.start_ns = start;
    s.end_ns = end;
    s.stream = stream;
    s.correlation = CorrelationId(correlation);
    s.kind = kind;
    t.syncs.push_back(s);
  };
  for (const KernelRecord& k : t.kernels) {
    if (rng() % 3 != 0) continue;
    for (size_t c = 0; c < launches; ++c) {
      const ApiCallRecord launch = t.api_calls[c];
      if (launch.correlation != k.correlation) continue;
      add(launch.end_ns + 1, std::max(k.end_ns, launch.end_ns + 1) + static_cast<int64_t>(rng() % 400), launch.thread,
          sync, SyncKind::kStreamSynchronize, k.stream);
      if (rng() % 2 == 0) add(launch.start_ns - 300, launch.start_ns - 100, launch.thread, wait, SyncKind::kStreamWaitEvent, k.stream);
      break;
    }
  }
  return run;
}

analysis::Report ReportOf(const std::string& path) {
  auto reader = store::RunReader::Open(path);
  EXPECT_TRUE(reader.ok());
  auto trace = (*reader)->LoadTrace(RunId(1));
  EXPECT_TRUE(trace.ok());
  analysis::ReportOptions options;
  options.iteration_range = "step";
  auto report = analysis::BuildReport({&*trace, nullptr, {}, nullptr}, options);
  EXPECT_TRUE(report.ok()) << report.status().ToString();
  return *report;
}

// The band row that holds the segment's item has an item spanning exactly the segment.
bool Banded(const RunTimeline& t, DeviceId device, const analysis::PathSegment& s) {
  const RunTimeline::Location at = LocateSegment(t, device, s);
  if (at.lane < 0) return false;
  const Lane& lane = t.lanes[static_cast<size_t>(at.lane)];
  if (static_cast<size_t>(at.row) >= lane.critical.size()) return false;
  const RowItems& band = lane.critical[static_cast<size_t>(at.row)];
  for (size_t i = 0; i < band.size(); ++i) {
    if (band.start_ns(i) == s.start_ns && band.end_ns(i) == s.end_ns) return true;
  }
  return false;
}

TEST_F(HostGpuPathTest, MatchesTheReportOnRandomProgramRuns) {
  std::mt19937_64 rng(23);
  size_t segments_seen = 0;
  std::array<size_t, analysis::kNumPathSteps> steps_seen{};
  for (int trial = 0; trial < 12; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const std::string path = dir_ + "/program.db";
    testing::WriteRandomRun(path, ProgramRun(rng, 30 + 20 * trial));
    auto loaded = LoadRun(path, RunId(1));
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    ASSERT_FALSE(loaded->ops.has_value());
    ASSERT_TRUE(loaded->host_gpu_path.has_value()) << loaded->host_gpu_path_problem;
    const HostGpuPathView& view = *loaded->host_gpu_path;
    const analysis::Report report = ReportOf(path);
    ASSERT_FALSE(report.devices.empty());
    const analysis::DeviceReport& dev = report.devices.front();
    EXPECT_EQ(view.device, dev.run.device);
    ASSERT_EQ(loaded->timeline.iterations.size(), dev.iteration_paths.size());
    ASSERT_GE(view.iteration, 0);
    const analysis::TraceCriticalPath& expected = dev.iteration_paths[static_cast<size_t>(view.iteration)];
    const analysis::TraceCriticalPath& got = view.path;
    const int64_t base = loaded->timeline.base_ns;
    ASSERT_EQ(got.segments.size(), expected.segments.size());
    EXPECT_EQ(got.length_ns, expected.length_ns);
    EXPECT_EQ(got.host_ns, expected.host_ns);
    EXPECT_EQ(got.gpu_ns, expected.gpu_ns);
    EXPECT_EQ(got.wait_ns, expected.wait_ns);
    for (size_t i = 0; i < got.segments.size(); ++i) {
      const analysis::PathSegment& g = got.segments[i];
      const analysis::PathSegment& e = expected.segments[i];
      ASSERT_EQ(g.start_ns + base, e.start_ns) << "segment " << i;
      ASSERT_EQ(g.end_ns + base, e.end_ns) << "segment " << i;
      ASSERT_EQ(g.step, e.step) << "segment " << i;
      ASSERT_EQ(g.record, e.record) << "segment " << i;
      ASSERT_EQ(g.stream, e.stream) << "segment " << i;
      ASSERT_EQ(g.thread, e.thread) << "segment " << i;
      ASSERT_EQ(got.NameOf(g), expected.NameOf(e)) << "segment " << i;
      ASSERT_TRUE(Banded(loaded->timeline, view.device, g)) << "segment " << i << " has no band";
    }
    segments_seen += got.segments.size();
    for (const analysis::PathSegment& g : got.segments) ++steps_seen[static_cast<size_t>(g.step)];
    bool has_section = false;
    for (const OverviewSection& s : DescribeRun(*loaded)) has_section |= s.title == "Critical path (host and GPU)";
    EXPECT_TRUE(has_section);
  }
  EXPECT_GT(segments_seen, 100u);
  // The runs must reach the records the viewer rebuilds beyond the rows: the syncs.
  EXPECT_GT(steps_seen[static_cast<size_t>(analysis::PathStep::kSyncWakeup)], 5u);
  EXPECT_GT(steps_seen[static_cast<size_t>(analysis::PathStep::kGpuWork)], 5u);
}

TEST_F(HostGpuPathTest, ModelRunsKeepTheOpGraphPath) {
  const std::string path = dir_ + "/model.db";
  testing::WriteModelRun(path);
  auto loaded = LoadRun(path, RunId(1));
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  ASSERT_TRUE(loaded->ops.has_value());
  EXPECT_FALSE(loaded->host_gpu_path.has_value());
  EXPECT_TRUE(loaded->host_gpu_path_problem.empty());
  for (const Lane& lane : loaded->timeline.lanes) {
    if (lane.kind != LaneKind::kStream) {
      EXPECT_TRUE(lane.critical.empty()) << lane.Title();
    }
  }
}

TEST(HostGpuPathLimitTest, LargeRunsAreLeftToTheReport) {
  RunTimeline timeline;
  timeline.kernel_count = static_cast<int64_t>(kMaxHostGpuPathRecords) + 1;
  DeviceIdleSummary device;
  device.device = DeviceId(0);
  const std::vector<DeviceIdleSummary> devices = {device};
  auto path = AnalyzeHostGpuPath({}, devices, timeline);
  ASSERT_FALSE(path.ok());
  EXPECT_EQ(path.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(path.status().message().find(std::to_string(kMaxHostGpuPathRecords + 1)), std::string::npos);
  EXPECT_EQ(AnalyzeHostGpuPath({}, {}, timeline).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace nimble::gui
