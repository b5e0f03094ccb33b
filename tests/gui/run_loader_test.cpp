// The loader against the analysis library on random runs (same gaps, causes, longest gaps, critical path
// and op weights as analysis::BuildReport on the full trace), on the known model run, and on files it
// must refuse with a clear message. Both sides sweep and weigh through analysis, so the random runs guard
// what the viewer adds: its merge of compact rows, relative times, and kernel spans taken from rows.
#include "nimble/gui/run_loader.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include "gui_test_runs.h"
#include "nimble/analysis/report.h"
#include "nimble/store/run_reader.h"
#include "nimble/store/timeline_reader.h"

namespace nimble::gui {
namespace {

namespace fs = std::filesystem;

class RunLoaderTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::MakeScratchDir("loader"); }
  void TearDown() override { fs::remove_all(dir_); }
  std::string PathOf(const std::string& name) const { return dir_ + "/" + name; }
  std::string dir_;
};

const DeviceIdleSummary* FindDevice(const LoadedRun& run, DeviceId device) {
  for (const DeviceIdleSummary& d : run.devices) {
    if (d.device == device) return &d;
  }
  return nullptr;
}

const RowItems* IdleRow(const LoadedRun& run, DeviceId device) {
  const int32_t lane = run.timeline.FindLane(LaneKind::kDeviceIdle, device, StreamId(), ThreadId());
  return lane < 0 ? nullptr : &run.timeline.lanes[static_cast<size_t>(lane)].rows[0];
}

void ExpectSameAsReport(const LoadedRun& loaded, const analysis::Report& report) {
  const int64_t base = loaded.timeline.base_ns;
  ASSERT_EQ(loaded.devices.size(), report.devices.size());
  for (const analysis::DeviceReport& expected : report.devices) {
    SCOPED_TRACE("device " + std::to_string(expected.run.device.value()));
    const DeviceIdleSummary* got = FindDevice(loaded, expected.run.device);
    ASSERT_NE(got, nullptr);
    EXPECT_EQ(got->span_start_ns + base, expected.run.window.start_ns);
    EXPECT_EQ(got->span_end_ns + base, expected.run.window.end_ns);
    EXPECT_EQ(got->active_ns, expected.run.active_ns);
    const RowItems* idle = IdleRow(loaded, expected.run.device);
    ASSERT_NE(idle, nullptr);
    // The busy chart over the whole span says what analysis says of the device's active time.
    EXPECT_EQ(got->busy.BusyNs(*idle, got->span_start_ns - 5, got->span_end_ns + 5), expected.run.active_ns);
    ASSERT_EQ(idle->size(), expected.run.gaps.size());
    for (size_t i = 0; i < idle->size(); ++i) {
      const analysis::IdleGap& gap = expected.run.gaps[i];
      ASSERT_EQ(idle->start_ns(i) + base, gap.start_ns);
      ASSERT_EQ(idle->end_ns(i) - idle->start_ns(i), gap.dur_ns);
      ASSERT_EQ(idle->label(i), static_cast<int32_t>(gap.cause)) << "gap " << i;
    }
    const auto longest = analysis::LongestGaps(expected.run.gaps, 200);
    ASSERT_EQ(got->longest.size(), longest.size());
    for (size_t i = 0; i < longest.size(); ++i) {
      analysis::IdleGap g = got->longest[i];
      g.start_ns += base;
      g.next_from_graph = longest[i].next_from_graph;  // not read by the viewer
      ASSERT_EQ(g, longest[i]) << "longest gap " << i;
    }
  }
  ASSERT_TRUE(report.graph.has_value());
  ASSERT_TRUE(loaded.ops.has_value()) << loaded.graph_problem;
  EXPECT_EQ(loaded.ops->critical_path, report.graph->critical_path.ops);
  EXPECT_EQ(loaded.ops->critical_path_ns, report.graph->critical_path.length_ns);
  for (size_t v = 0; v < loaded.ops->ops.size(); ++v) {
    ASSERT_EQ(loaded.ops->ops[v].gpu_time_ns, report.graph->op_time_ns[v]) << "op " << v;
  }
}

TEST_F(RunLoaderTest, MatchesTheAnalysisOnRandomRuns) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 25; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const testing::RandomRun run = testing::MakeRandomRun(rng, 20 + trial * 25);
    const std::string path = PathOf("random.db");
    testing::WriteRandomRun(path, run);
    LoadOptions options;
    options.kernel_threads = 1 + trial % 3;  // one, two and three readers must agree
    options.min_kernels_per_thread = 10;
    auto loaded = LoadRun(path, RunId(1), options);
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    EXPECT_EQ(loaded->timeline.iteration_text, "step");
    ASSERT_EQ(loaded->timeline.iterations.size(), 4u);

    auto reader = store::RunReader::Open(path);
    ASSERT_TRUE(reader.ok());
    auto trace = (*reader)->LoadTrace(RunId(1));
    auto graph = (*reader)->LoadGraph(RunId(1));
    auto attribution = (*reader)->LoadAttribution(RunId(1));
    ASSERT_TRUE(trace.ok() && graph.ok() && attribution.ok());
    analysis::ReportInput input;
    input.trace = &*trace;
    input.graph = &*graph;
    input.attribution = *attribution;
    analysis::ReportOptions report_options;
    report_options.iteration_range = "step";
    report_options.top_gaps = 200;
    auto report = analysis::BuildReport(input, report_options);
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    ExpectSameAsReport(*loaded, *report);

    size_t kernels = 0, graphs = 0;
    for (const Lane& lane : loaded->timeline.lanes) {
      for (const RowItems& row : lane.rows) {
        for (size_t i = 0; i < row.size(); ++i) {
          kernels += row.ref(i).kind() == ItemKind::kKernel;
          graphs += row.ref(i).kind() == ItemKind::kGraphLaunch;
        }
      }
    }
    EXPECT_EQ(kernels, run.trace.kernels.size());
    EXPECT_EQ(graphs, run.trace.graph_launches.size());
    EXPECT_EQ(loaded->timeline.graph_launches.size(), run.trace.graph_launches.size());
  }
}

TEST_F(RunLoaderTest, LoadsTheModelRunAsDesigned) {
  const std::string path = PathOf("model.db");
  const testing::ModelRunFacts facts = testing::WriteModelRun(path);
  auto loaded = LoadRun(path, RunId(1));
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  const RunTimeline& t = loaded->timeline;
  std::vector<std::string> titles;
  for (const Lane& lane : t.lanes) titles.push_back(lane.Title());
  EXPECT_EQ(titles, (std::vector<std::string>{"GPU 0 idle", "GPU 0  stream 7", "GPU 0  stream 8", "Thread 1001  NVTX",
                                               "Thread 1001  CUDA API"}));
  EXPECT_EQ(t.lanes[3].rows.size(), 2u);  // op ranges nested in iteration ranges
  EXPECT_EQ(t.iteration_text, "iteration");
  ASSERT_EQ(t.iterations.size(), 3u);
  EXPECT_EQ(t.iterations[0].first + t.base_ns, facts.iterations[0].start_ns);
  EXPECT_EQ(t.start_ns + t.base_ns, facts.iterations[0].start_ns);  // the first NVTX range comes first
  ASSERT_TRUE(loaded->ops.has_value()) << loaded->graph_problem;
  std::vector<std::string> path_names;
  for (OpId op : loaded->ops->critical_path) path_names.push_back(loaded->ops->ops[static_cast<size_t>(op.value())].name);
  EXPECT_EQ(path_names, facts.critical_ops);
  EXPECT_FALSE(loaded->ops->assignment_stored);
  EXPECT_EQ(loaded->ops->assigned_streams, 3);
  size_t critical = 0;
  for (const Lane& lane : t.lanes) {
    for (const RowItems& row : lane.critical) critical += row.size();
  }
  EXPECT_EQ(critical, facts.critical_kernels.size());
  ASSERT_EQ(loaded->devices.size(), 1u);
  std::vector<testing::KnownGap> long_gaps;
  for (const analysis::IdleGap& g : loaded->devices[0].longest) {
    if (g.dur_ns >= 20'000) long_gaps.push_back({{g.start_ns + t.base_ns, g.start_ns + g.dur_ns + t.base_ns}, g.cause});
  }
  std::sort(long_gaps.begin(), long_gaps.end(),
            [](const auto& a, const auto& b) { return a.interval.start_ns < b.interval.start_ns; });
  ASSERT_EQ(long_gaps.size(), facts.long_gaps.size());
  for (size_t i = 0; i < long_gaps.size(); ++i) {
    EXPECT_EQ(long_gaps[i].interval.start_ns, facts.long_gaps[i].interval.start_ns);
    EXPECT_EQ(long_gaps[i].interval.end_ns, facts.long_gaps[i].interval.end_ns);
    EXPECT_EQ(long_gaps[i].cause, facts.long_gaps[i].cause) << "gap " << i;
  }
  EXPECT_EQ(loaded->speedups.size(), 3u);
  EXPECT_EQ(loaded->Label(), "inception_block.pt · eager · run 1");
}

TEST_F(RunLoaderTest, KernelDetailsComeFromTheLoadsOpenDatabase) {
  const std::string path = PathOf("model.db");
  testing::WriteModelRun(path);
  auto reader = store::RunReader::Open(path);
  ASSERT_TRUE(reader.ok());
  auto trace = (*reader)->LoadTrace(RunId(1));
  ASSERT_TRUE(trace.ok());
  reader->reset();
  auto loaded = LoadRun(path, RunId(1));
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  ASSERT_NE(loaded->records, nullptr);
  // Gone from the directory: only a reader that is still open can answer now.
  fs::remove(path);
  ASSERT_FALSE(store::TimelineReader::Open(path).ok());
  const RunRecords& records = *loaded->records;
  // Details are asked for from worker tasks, several at once when the user clicks quickly.
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (size_t i = 0; i < trace->kernels.size(); ++i) {
        const KernelRecord& want = trace->kernels[i];
        auto got = records.LoadKernel(KernelIndex(static_cast<int64_t>(i)));
        if (!got.ok() || got->start_ns != want.start_ns || got->end_ns != want.end_ns || got->grid.x != want.grid.x ||
            records.strings().Get(got->name) != trace->strings.Get(want.name)) {
          ++wrong;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
  const auto missing = records.LoadKernel(KernelIndex(static_cast<int64_t>(trace->kernels.size())));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
}

TEST_F(RunLoaderTest, RefusesBrokenFilesWithAClearMessage) {
  const std::string empty = PathOf("empty.db");
  std::ofstream(empty).close();
  const std::string garbage = PathOf("garbage.db");
  std::ofstream(garbage) << std::string(8192, 'x');
  const std::string newer = PathOf("newer.db");
  testing::WriteModelRun(newer);
  {
    // PRAGMA user_version lives at byte 60 of the SQLite header, big-endian.
    std::fstream f(newer, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(60);
    const char version[4] = {0, 0, 0, 99};
    f.write(version, 4);
  }
  const std::string missing = PathOf("missing.db");
  const std::pair<std::string, std::string> cases[] = {
      {empty, "empty"}, {garbage, "not"}, {newer, "newer"}, {missing, "missing.db"}};
  for (const auto& [path, words] : cases) {
    auto runs = ListRuns(path);
    ASSERT_FALSE(runs.ok()) << path;
    EXPECT_NE(runs.status().message().find(path), std::string::npos) << runs.status().message();
    EXPECT_NE(runs.status().message().find(words), std::string::npos) << runs.status().message();
    EXPECT_FALSE(LoadRun(path, RunId(1)).ok());
  }
}

TEST_F(RunLoaderTest, CancelStopsTheLoad) {
  const std::string path = PathOf("model.db");
  testing::WriteModelRun(path);
  std::atomic<bool> cancel{true};
  LoadOptions options;
  options.cancel = &cancel;
  auto loaded = LoadRun(path, RunId(1), options);
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find("cancelled"), std::string::npos);
  EXPECT_FALSE(LoadRun(path, RunId(7)).ok());  // no such run
}

TEST_F(RunLoaderTest, ReportsProgressToTheEnd) {
  const std::string path = PathOf("model.db");
  testing::WriteModelRun(path);
  std::vector<double> fractions;
  LoadOptions options;
  options.progress = [&](double f, std::string_view) { fractions.push_back(f); };
  ASSERT_TRUE(LoadRun(path, RunId(1), options).ok());
  ASSERT_FALSE(fractions.empty());
  EXPECT_TRUE(std::is_sorted(fractions.begin(), fractions.end()));
  EXPECT_EQ(fractions.back(), 1.0);
}

}  // namespace
}  // namespace nimble::gui
