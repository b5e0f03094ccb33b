// End-to-end tests of `nimble-prof diff`: the real binary on the bundled recorded run, a copy of it with
// one kernel slowed, and databases written here; the tables, --json, the exit codes of --fail-above,
// and the errors (exit 1, naming the file) and usage mistakes (exit 2).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "command_runner.h"
#include "diff_databases.h"
#include "iteration_runs.h"

namespace nimble::cli {
namespace {

namespace fs = std::filesystem;
using nimble::testing::RunCommand;

const std::string kProf = std::string(NIMBLE_BINARY_DIR) + "/cli/nimble-prof";
// The recorded run's largest kernel by GPU time (465 us of a 5.6 ms iteration).
const std::string kBigKernel =
    "sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize64x32x64_stage5_warpsize2x2x1_g1_"
    "tensor16x8x8_alignc4_execute_kernel__5x_cudnn";

class DiffCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("nimble_diff_command_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    base_ = (dir_ / "base.db").string();
    fs::copy_file(fs::path(NIMBLE_SOURCE_DIR) / "samples/recorded/inception_v3.db", base_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The recorded run with its largest kernel `factor` times slower.
  std::string Slowed(double factor) {
    const std::string path = (dir_ / ("slowed_" + std::to_string(factor) + ".db")).string();
    EXPECT_TRUE(testing::CopySlowed(base_, RunId(1), path, kBigKernel, factor).valid());
    return path;
  }
  testing::CommandResult Diff(const std::string& args, bool stdout_only = false) {
    return RunCommand(kProf + " diff " + args, stdout_only);
  }
  static std::string Q(const std::string& path) { return testing::ShellQuote(path); }

  fs::path dir_;
  std::string base_;
};

TEST_F(DiffCommandTest, TablesShowTheTotalsTheCausesAndTheSlowedKernel) {
  const std::string slowed = Slowed(1.5);
  const auto r = Diff(Q(base_) + " " + Q(slowed));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* s : {"Total (median per iteration)", "iteration time", "GPU active time", "GPU idle time",
                        "host launched late", "synchronization", "memory copy", "Kernels: 1 of 15 changed",
                        "tilesize64x32x64_stage5", "significant", "+50.0%", "10 iterations ('nimble-prof iteration')"}) {
    EXPECT_NE(r.output.find(s), std::string::npos) << s << "\n" << r.output;
  }
  EXPECT_EQ(r.output.find("regression gate"), std::string::npos) << "no gate asked for";
}

TEST_F(DiffCommandTest, FailAboveFailsOnlyASignificantRegressionAboveTheThreshold) {
  const std::string slowed = Slowed(1.5);
  const auto json = Diff("--json " + Q(base_) + " " + Q(slowed), /*stdout_only=*/true);
  ASSERT_EQ(json.exit_code, 0) << json.output;
  const nlohmann::json j = nlohmann::json::parse(json.output);
  ASSERT_TRUE(j["total"]["iteration"]["significant"].get<bool>()) << json.output;
  const double percent = j["total"]["iteration"]["change_percent"].get<double>();
  ASSERT_GT(percent, 1.0);

  char low[32], high[32];
  std::snprintf(low, sizeof low, "%.2f", percent / 2);
  std::snprintf(high, sizeof high, "%.2f", percent * 2);
  const auto failed = Diff("--fail-above " + std::string(low) + " " + Q(base_) + " " + Q(slowed));
  EXPECT_EQ(failed.exit_code, 1) << failed.output;
  EXPECT_NE(failed.output.find("regression gate: FAILED (+"), std::string::npos) << failed.output;
  const auto passed = Diff("--fail-above " + std::string(high) + " " + Q(base_) + " " + Q(slowed));
  EXPECT_EQ(passed.exit_code, 0) << passed.output;
  EXPECT_NE(passed.output.find("regression gate: passed (+"), std::string::npos) << passed.output;
  // The other way round the run got faster: no gate fails on a speedup.
  const auto faster = Diff("--fail-above 0 " + Q(slowed) + " " + Q(base_));
  EXPECT_EQ(faster.exit_code, 0) << faster.output;
  // A copy of the same run: nothing changed, even a 0% gate passes.
  const std::string copy = (dir_ / "copy.db").string();
  fs::copy_file(base_, copy);
  const auto same = Diff("--fail-above 0 " + Q(base_) + " " + Q(copy));
  EXPECT_EQ(same.exit_code, 0) << same.output;
  EXPECT_NE(same.output.find("Kernels: 0 of 15 changed"), std::string::npos) << same.output;
}

TEST_F(DiffCommandTest, JsonKeepsStdoutOneDocumentAndCarriesTheGate) {
  const std::string slowed = Slowed(1.5);
  const auto r = Diff("--json --fail-above 1 " + Q(base_) + " " + Q(slowed), /*stdout_only=*/true);
  EXPECT_EQ(r.exit_code, 1);
  const nlohmann::json j = nlohmann::json::parse(r.output);
  EXPECT_TRUE(j["gate"]["failed"].get<bool>());
  EXPECT_EQ(j["gate"]["threshold_percent"], 1.0);
  EXPECT_EQ(j["base"]["database"], base_);
  EXPECT_EQ(j["new"]["run"]["id"], 1);
  EXPECT_EQ(j["ops"].size(), 120u);
}

TEST_F(DiffCommandTest, TwoRunsOfOneFileAndTheRunFlags) {
  const std::string path = (dir_ / "runs.db").string();
  for (double slow : {1.0, 1.0, 1.4}) {
    testing::IterationPlan plan;
    plan.dur_ns = [slow](int it, size_t k) {
      return static_cast<int64_t>((k == 0 ? 20000 * slow : 8000) * testing::Jitter(11, it, k, 0.02));
    };
    const testing::IterationRun run = testing::MakeIterationRun(plan);
    ASSERT_TRUE(testing::WriteDiffRun(path, run.trace, &run.graph, run.attribution).valid());
  }
  const auto last_two = Diff("--json --fail-above 5 " + Q(path) + " " + Q(path), /*stdout_only=*/true);
  EXPECT_EQ(last_two.exit_code, 1) << last_two.output;
  const nlohmann::json j = nlohmann::json::parse(last_two.output);
  EXPECT_EQ(j["base"]["run"]["id"], 2);
  EXPECT_EQ(j["new"]["run"]["id"], 3);
  const auto first_two = Diff("--fail-above 5 --base-run 1 --new-run 2 " + Q(path) + " " + Q(path));
  EXPECT_EQ(first_two.exit_code, 0) << first_two.output;
  EXPECT_NE(first_two.output.find("Ops: 0 of 3 changed"), std::string::npos) << first_two.output;
}

TEST_F(DiffCommandTest, ErrorsNameTheFileAndExitOne) {
  const std::string missing = (dir_ / "missing.db").string();
  auto r = Diff(Q(base_) + " " + Q(missing));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(missing), std::string::npos) << r.output;
  const std::string text = (dir_ / "notes.txt").string();
  std::ofstream(text) << "these are notes, not a run database; they are long enough to have a header\n";
  r = Diff(Q(text) + " " + Q(base_));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(text), std::string::npos) << r.output;
  r = Diff("--new-run 5 " + Q(base_) + " " + Q(base_));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(base_ + ": no run 5"), std::string::npos) << r.output;
}

TEST_F(DiffCommandTest, BadUsageExitsTwo) {
  for (const std::string& args : {Q(base_), "--top -1 " + Q(base_) + " " + Q(base_),
                                  "--fail-above fast " + Q(base_) + " " + Q(base_),
                                  "--fail-above -3 " + Q(base_) + " " + Q(base_),
                                  "--base-run 0 " + Q(base_) + " " + Q(base_), "--frobnicate " + Q(base_) + " " + Q(base_)}) {
    const auto r = Diff(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
  }
}

}  // namespace
}  // namespace nimble::cli
