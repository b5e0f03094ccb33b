// End-to-end tests of `nimble-prof report` and `info`: the real binary on databases built here with
// known idle gaps, their causes and an op graph; plus exit codes and error messages on bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "command_runner.h"
#include "nimble/store/run_reader.h"
#include "nimble/store/run_writer.h"

namespace nimble::cli {
namespace {

namespace fs = std::filesystem;
using nimble::testing::RunCommand;

const std::string kProf = std::string(NIMBLE_BINARY_DIR) + "/cli/nimble-prof";

// One device, one stream. Activity [1000,2000] [5000,6000] [9500,10000] [12500,13000] (3000 ns active);
// gaps 2000-5000 host launched late (its launch began at 4500), 6000-9500 during a stream sync,
// 10000-12500 while a host-to-device copy ran.
Trace GapTrace() {
  Trace t;
  const StringId launch = t.strings.Intern("cudaLaunchKernel_v7000");
  const StringId kname = t.strings.Intern("spin_kernel");
  auto kernel = [&](int64_t s, int64_t e, int64_t corr) {
    KernelRecord k;
    k.start_ns = s, k.end_ns = e, k.device = DeviceId(0), k.stream = StreamId(7), k.correlation = CorrelationId(corr);
    k.name = k.short_name = kname;
    t.kernels.push_back(k);
  };
  auto api = [&](int64_t s, int64_t corr) {
    ApiCallRecord a;
    a.start_ns = s, a.end_ns = s + 40, a.correlation = CorrelationId(corr), a.name = launch, a.thread = ThreadId(1);
    t.api_calls.push_back(a);
  };
  kernel(1000, 2000, 1), api(900, 1);
  kernel(5000, 6000, 2), api(4500, 2);
  kernel(9500, 10000, 3), api(2100, 3);
  kernel(12500, 13000, 4), api(10000, 4);
  SyncRecord sync;
  sync.start_ns = 6000, sync.end_ns = 9000, sync.device = DeviceId(0), sync.stream = StreamId(7);
  sync.kind = SyncKind::kStreamSynchronize;
  t.syncs.push_back(sync);
  MemcpyRecord copy;
  copy.start_ns = 10000, copy.end_ns = 12000, copy.device = DeviceId(0), copy.stream = StreamId(7);
  copy.bytes = 1 << 20, copy.copy_kind = CopyKind::kHtoD, copy.src_kind = MemoryKind::kPageable;
  copy.dst_kind = MemoryKind::kDevice;
  t.memcpys.push_back(copy);
  return t;
}

class ReportCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("nimble_report_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    db_ = (dir_ / "run.db").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  void WriteRun(const Trace& trace, const OpGraph* graph = nullptr,
                const std::vector<KernelAttribution>& attribution = {}) {
    RunInfo run;
    run.model = "synthetic";
    run.mode = RunMode::kProgram;
    auto writer = store::RunWriter::Create(db_, run);
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    ASSERT_TRUE((*writer)->AppendTrace(trace).ok());
    if (graph) {
      ASSERT_TRUE((*writer)->WriteGraph(*graph, attribution).ok());
    }
    ASSERT_TRUE((*writer)->Commit().ok());
  }

  nlohmann::json ReportJson(const std::string& extra = "") {
    auto r = RunCommand(kProf + " report --json " + extra + " '" + db_ + "'", /*stdout_only=*/true);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return nlohmann::json::parse(r.output);
  }

  fs::path dir_;
  std::string db_;
};

TEST_F(ReportCommandTest, FindsActiveTimeAndEveryGapCause) {
  WriteRun(GapTrace());
  const auto j = ReportJson();
  const auto& run = j["runs"][0]["devices"][0]["run"];
  EXPECT_EQ(run["active_ns"], 3000);
  EXPECT_EQ(run["idle_ns"], 9000);
  EXPECT_EQ(run["idle_by_cause"]["host_launch_late"]["idle_ns"], 3000);
  EXPECT_EQ(run["idle_by_cause"]["synchronization"]["idle_ns"], 3500);
  EXPECT_EQ(run["idle_by_cause"]["memory_copy"]["idle_ns"], 2500);
  EXPECT_EQ(run["idle_by_cause"]["other"]["idle_ns"], 0);
  EXPECT_TRUE(j["runs"][0]["graph"].is_null());
}

TEST_F(ReportCommandTest, TablesNameTheCauses) {
  WriteRun(GapTrace());
  auto r = RunCommand(kProf + " report '" + db_ + "'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* s : {"GPU active time", "3.00 us", "host launched late", "synchronization", "memory copy"}) {
    EXPECT_NE(r.output.find(s), std::string::npos) << s << "\n" << r.output;
  }
}

TEST_F(ReportCommandTest, StoresResultsUnlessAskedNotTo) {
  WriteRun(GapTrace());
  ReportJson("--no-store");
  {
    auto reader = store::RunReader::Open(db_);
    ASSERT_TRUE(reader.ok());
    EXPECT_TRUE((*reader)->LoadMetrics(RunId(1))->empty());
  }
  ReportJson();
  auto reader = store::RunReader::Open(db_);
  ASSERT_TRUE(reader.ok());
  auto metrics = (*reader)->LoadMetrics(RunId(1));
  ASSERT_TRUE(metrics.ok());
  bool found = false;
  for (const Metric& m : *metrics) {
    if (m.name == "gpu_active_ns" && m.window == -1) found = (m.value == 3000);
  }
  EXPECT_TRUE(found);
}

// Diamond 0 -> {1, 2} -> 3: width 2, two streams, |E'| - |M| = 4 - 2 = 2 syncs.
TEST_F(ReportCommandTest, GraphRunGetsCriticalPathAndAssignment) {
  Trace t = GapTrace();
  OpGraph g;
  for (int i = 0; i < 4; ++i) g.ops.push_back({OpId(i), "op" + std::to_string(i), "aten::relu", "", 0});
  g.edges = {{OpId(0), OpId(1)}, {OpId(0), OpId(2)}, {OpId(1), OpId(3)}, {OpId(2), OpId(3)}};
  std::vector<KernelAttribution> attribution;
  for (int i = 0; i < 4; ++i) attribution.push_back({OpId(i), KernelIndex(i)});
  WriteRun(t, &g, attribution);
  const auto j = ReportJson();
  const auto& graph = j["runs"][0]["graph"];
  ASSERT_FALSE(graph.is_null());
  EXPECT_EQ(graph["width"], 2);
  EXPECT_EQ(graph["assignment"]["streams"], 2);
  EXPECT_EQ(graph["assignment"]["syncs"].size(), 2u);
  // Kernels of ops 0, 1|2 (1000 ns each; op 2's is 500), 3 (500): longest path 0-1-3 = 2500 ns.
  EXPECT_EQ(graph["critical_path"]["length_ns"], 2500);
  EXPECT_EQ(graph["critical_path"]["ops"], nlohmann::json({0, 1, 3}));
  EXPECT_FALSE(j["runs"][0]["prediction"].is_null());
}

TEST_F(ReportCommandTest, BadInputGivesClearErrorsAndExitCodes) {
  auto missing = RunCommand(kProf + " report '" + (dir_ / "nope.db").string() + "'");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.output.find("nope.db"), std::string::npos) << missing.output;

  const std::string junk = (dir_ / "junk.db").string();
  std::ofstream(junk) << "this is not a database, just some text that is long enough to look like a header";
  auto bad = RunCommand(kProf + " report '" + junk + "'");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.output.find("junk.db"), std::string::npos) << bad.output;

  WriteRun(GapTrace());
  auto no_run = RunCommand(kProf + " report --run 99 '" + db_ + "'");
  EXPECT_EQ(no_run.exit_code, 1);
  EXPECT_NE(no_run.output.find("99"), std::string::npos) << no_run.output;

  EXPECT_EQ(RunCommand(kProf + " report").exit_code, 2);
  EXPECT_EQ(RunCommand(kProf + " report --bogus '" + db_ + "'").exit_code, 2);
  EXPECT_EQ(RunCommand(kProf + " --version").exit_code, 0);
}

// The README's exit codes: 1 for a run-time failure (a directory is not a database), 2 for bad usage.
TEST_F(ReportCommandTest, ExitCodesOfDirectoriesUnknownCommandsAndUpgrade) {
  auto dir = RunCommand(kProf + " report '" + dir_.string() + "'");
  EXPECT_EQ(dir.exit_code, 1) << dir.output;
  EXPECT_NE(dir.output.find("is a directory"), std::string::npos) << dir.output;
  EXPECT_EQ(RunCommand(kProf + " info '" + dir_.string() + "'").exit_code, 1);
  auto unknown = RunCommand(kProf + " frobnicate");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.output.find("unknown command 'frobnicate'"), std::string::npos) << unknown.output;
  WriteRun(GapTrace());
  auto upgrade = RunCommand(kProf + " upgrade '" + db_ + "'");
  EXPECT_EQ(upgrade.exit_code, 0) << upgrade.output;
  EXPECT_NE(upgrade.output.find("already at schema"), std::string::npos) << upgrade.output;
  auto range = RunCommand(kProf + " report --no-store --iteration-range nosuch '" + db_ + "'");
  EXPECT_EQ(range.exit_code, 0) << range.output;
  EXPECT_NE(range.output.find("warning: run 1: no NVTX range is named 'nosuch'"), std::string::npos) << range.output;
}

TEST_F(ReportCommandTest, InfoListsRunsAndTables) {
  WriteRun(GapTrace());
  auto r = RunCommand(kProf + " info '" + db_ + "'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("CUPTI_ACTIVITY_KIND_KERNEL (view)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("kernel_launch_configs"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("synthetic"), std::string::npos);
}

}  // namespace
}  // namespace nimble::cli
