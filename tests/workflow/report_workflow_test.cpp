// The report workflow on copies of the bundled recorded runs, through one open database: what it
// computes, that it stores exactly what it reported (and only when asked and allowed), that a read-only
// open never changes the file, and the errors it names.
#include "nimble/workflow/report.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "nimble/store/schema.h"
#include "nimble/workflow/info.h"
#include "nimble/workflow/report_json.h"
#include "scratch_dir_test.h"

namespace nimble::workflow {
namespace {

namespace fs = std::filesystem;

class ReportWorkflowTest : public nimble::testing::ScratchDirTest {
 protected:
  static std::string Bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  static std::unique_ptr<store::RunDatabase> Open(const std::string& path, store::Access access) {
    auto db = store::RunDatabase::Open(path, access);
    EXPECT_TRUE(db.ok()) << db.status().ToString();
    return db.ok() ? std::move(*db) : nullptr;
  }
};

TEST_F(ReportWorkflowTest, ReadOnlyReportLeavesTheFileAsItWas) {
  const std::string path = Copy("concurrent_streams.db");
  const std::string before = Bytes(path);
  {
    auto db = Open(path, store::Access::kRead);
    ASSERT_NE(db, nullptr);
    auto result = Report(*db, ReportOptions{.store = false});
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    ASSERT_EQ(result->runs.size(), 1u);
    const RunReport& run = result->runs.front();
    EXPECT_EQ(run.graph_or_null(), nullptr);
    EXPECT_FALSE(run.report.graph.has_value());
    ASSERT_EQ(run.report.devices.size(), 1u);
    EXPECT_EQ(run.iteration_range, "iteration");
    EXPECT_EQ(run.report.devices.front().iterations.size(), 10u);
    EXPECT_EQ(run.report.devices.front().run.kernel_count, 44);
    // Storing through a database opened for reading is refused, and says so.
    const Status refused = db->StoreResults(run.run.id, {});
    EXPECT_EQ(refused.code(), StatusCode::kFailedPrecondition);
    EXPECT_NE(refused.message().find(path), std::string::npos) << refused.message();
    EXPECT_EQ(Report(*db, ReportOptions{.store = true}).status().code(), StatusCode::kFailedPrecondition);
  }
  EXPECT_EQ(Bytes(path), before);
  EXPECT_FALSE(fs::exists(path + "-wal"));
}

TEST_F(ReportWorkflowTest, StoresExactlyWhatItReported) {
  const std::string path = Copy("inception_v3.db");
  auto db = Open(path, store::Access::kReadWrite);
  ASSERT_NE(db, nullptr);
  auto result = Report(*db, ReportOptions{.run = 1, .store = true, .top_gaps = 3});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(result->runs.size(), 1u);
  const RunReport& run = result->runs.front();
  ASSERT_TRUE(run.report.graph.has_value());
  EXPECT_EQ(run.report.graph->num_ops, 120);
  EXPECT_LE(run.report.devices.front().longest_gaps.size(), 3u);
  const StoredResults expected = ResultsOf(run);
  ASSERT_FALSE(expected.metrics.empty());
  EXPECT_EQ(*db->reader().LoadMetrics(RunId(1)), expected.metrics);
  EXPECT_EQ(*db->reader().LoadSpeedups(RunId(1)), expected.speedups);
  EXPECT_EQ(*db->reader().LoadAssignment(RunId(1)), expected.assignment);
  const nlohmann::json json = ReportResultToJson(*result);
  EXPECT_EQ(json["database"], path);
  EXPECT_EQ(json["runs"][0]["graph"]["assignment"]["streams"], run.report.graph->assignment.num_streams);
}

TEST_F(ReportWorkflowTest, ResultRunsAreAddedOnTheSameConnection) {
  const std::string path = Copy("inception_v3.db");
  auto db = Open(path, store::Access::kReadWrite);
  ASSERT_NE(db, nullptr);
  const OpGraph graph = *db->reader().LoadGraph(RunId(1));
  const std::vector<Speedup> speedups = {{RunMode::kAotSingle, 1.5, 1.4, 5.0}};
  const StreamAssignment single{std::vector<StreamId>(graph.ops.size(), StreamId(0)), 1, {}};
  const RunInfo info{RunId(), "m.pt", "1x3x8x8", "GPU", RunMode::kAotSingle, "cmd", 10, 0, 1};
  auto id = db->AddResultRun(info, graph, {{}, speedups, &single});
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  EXPECT_EQ(db->reader().Run(*id)->mode, RunMode::kAotSingle);
  EXPECT_EQ(*db->reader().LoadSpeedups(*id), speedups);
  EXPECT_EQ(db->reader().LoadGraph(*id)->ops.size(), graph.ops.size());
  auto info_result = Info(*db);
  ASSERT_TRUE(info_result.ok());
  EXPECT_EQ(info_result->runs.size(), 2u);
}

// A result run (nimble-accelerate's, nothing recorded) keeps what was stored with it when the whole
// database is reported and stored: its latency and memory metrics and its speedups, which the report
// shows instead of computing anything.
TEST_F(ReportWorkflowTest, ReportingLeavesResultRunsStoredFiguresAsTheyWere) {
  const std::string path = Copy("inception_v3.db");
  auto db = Open(path, store::Access::kReadWrite);
  ASSERT_NE(db, nullptr);
  const OpGraph graph = *db->reader().LoadGraph(RunId(1));
  const std::vector<Speedup> speedups = {{RunMode::kAotMulti, 1.5, 1.4, 5.0}};
  const std::vector<Metric> metrics = {{"latency_median_ns", 1.5e6, "ns", -1},
                                       {"peak_memory_bytes", 114.0 * (1 << 20), "bytes", -1},
                                       {"graph_pool_bytes", 50.0 * (1 << 20), "bytes", -1}};
  const RunInfo info{RunId(), "m.pt", "1x3x8x8", "GPU", RunMode::kAotMulti, "cmd", 10, 0, 1};
  auto id = db->AddResultRun(info, graph, {metrics, speedups, nullptr});
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  ReportOptions options;
  options.store = true;
  auto result = Report(*db, options);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(result->runs.size(), 2u);
  EXPECT_TRUE(result->runs[0].stored_metrics.empty()) << "a recorded run's figures are the report's own";
  EXPECT_EQ(result->runs[1].stored_metrics, metrics);
  EXPECT_EQ(*db->reader().LoadMetrics(*id), metrics);
  EXPECT_EQ(*db->reader().LoadSpeedups(*id), speedups);
  EXPECT_FALSE(db->reader().LoadMetrics(RunId(1))->empty());
  EXPECT_EQ(ReportToJson(result->runs[1])["stored_metrics"]["peak_memory_bytes"], 114.0 * (1 << 20));
}

// The case a user met: one kernel's end changed inside its time block. Only the run's content digest
// can see it; the report must be an error naming the file, never a confident wrong figure.
TEST_F(ReportWorkflowTest, AValueChangedInsideARecordIsAnErrorNotAReport) {
  const std::string path = Copy("inception_v3.db");
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(raw, "UPDATE kernels SET end = end - 1 WHERE id = (SELECT id FROM kernels LIMIT 1 OFFSET 500)",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  EXPECT_EQ(sqlite3_changes(raw), 1);
  sqlite3_close(raw);
  auto db = store::RunDatabase::Open(path, store::Access::kRead);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  const Status refused = Report(**db, ReportOptions{.store = false}).status();
  EXPECT_EQ(refused.code(), StatusCode::kDataLoss) << refused.ToString();
  EXPECT_NE(refused.message().find(path), std::string::npos) << refused.message();
  EXPECT_NE(refused.message().find("table kernels of run 1 no longer matches"), std::string::npos) << refused.message();
}

TEST_F(ReportWorkflowTest, AFileThatCannotTakeResultsIsReportedReadOnlyWithTheReason) {
  const std::string path = (dir_ / "old.db").string();
  ASSERT_TRUE(store::CreateDatabaseAtVersion(path, 5).ok());
  const std::string before = Bytes(path);
  auto opened = OpenForReport(path, /*store=*/true);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  EXPECT_EQ(opened->db->access(), store::Access::kRead);
  EXPECT_NE(opened->not_stored.find("nimble-prof upgrade"), std::string::npos) << opened->not_stored;
  EXPECT_EQ(Report(*opened->db, ReportOptions{.store = false}).status().code(), StatusCode::kNotFound);  // no run
  opened->db.reset();
  EXPECT_EQ(Bytes(path), before) << "reading an older schema changed the file";
  auto current = OpenForReport(Copy("concurrent_streams.db"), /*store=*/true);
  ASSERT_TRUE(current.ok());
  EXPECT_TRUE(current->not_stored.empty()) << current->not_stored;
  EXPECT_EQ(current->db->access(), store::Access::kReadWrite);
}

TEST_F(ReportWorkflowTest, AnIterationWindowOutsideTheRunsRecordsIsAnError) {
  Trace trace;
  const StringId iteration = trace.strings.Intern("iteration");
  KernelRecord k;
  k.start_ns = 1'000, k.end_ns = 2'000, k.device = DeviceId(0), k.stream = StreamId(7);
  trace.kernels.push_back(k);
  trace.ranges.push_back(NvtxRange{900, 2'100, ThreadId(1), iteration, {}});
  RunInfo run;
  run.id = RunId(1);
  EXPECT_TRUE(BuildRunReport(run, trace, {}, {}, ReportOptions{}, "t.db, run 1").ok());
  trace.ranges.push_back(NvtxRange{5'000'000, 5'001'000, ThreadId(1), iteration, {}});  // a damaged range
  const Status bad = BuildRunReport(run, trace, {}, {}, ReportOptions{}, "t.db, run 1").status();
  EXPECT_EQ(bad.code(), StatusCode::kDataLoss);
  EXPECT_NE(bad.message().find("iteration 2"), std::string::npos) << bad.message();
}

TEST_F(ReportWorkflowTest, MissingRunAndEmptyDatabaseAreNamed) {
  const std::string path = Copy("concurrent_streams.db");
  auto db = Open(path, store::Access::kRead);
  ASSERT_NE(db, nullptr);
  const Status missing = Report(*db, ReportOptions{.run = 99, .store = false}).status();
  EXPECT_EQ(missing.code(), StatusCode::kNotFound);
  EXPECT_NE(missing.message().find("no run 99"), std::string::npos) << missing.message();
  EXPECT_EQ(store::RunDatabase::Open((dir_ / "absent.db").string(), store::Access::kRead).status().code(),
            StatusCode::kNotFound);
}

}  // namespace
}  // namespace nimble::workflow
