// End-to-end tests of `nimble-prof import`: the real binary on the Kineto fixtures, its summary (text and
// --json), `report` on the result, and the exit codes of bad input (1) and bad usage (2).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "command_runner.h"

namespace nimble::cli {
namespace {

namespace fs = std::filesystem;
using nimble::testing::RunCommand;

const std::string kProf = std::string(NIMBLE_BINARY_DIR) + "/cli/nimble-prof";
const std::string kData = std::string(NIMBLE_SOURCE_DIR) + "/tests/workflow/data/kineto/";

class ImportCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("nimble_import_cli_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    db_ = (dir_ / "run.db").string();
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  std::string db_;
};

TEST_F(ImportCommandTest, ImportsAndSaysWhatToRunNext) {
  const auto r = RunCommand({kProf, "import", kData + "profiler_steps.json.gz", "-o", db_});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("(torch.profiler trace, gzip)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("5 kernels on 2 streams"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("iterations: 2 (ranges 'ProfilerStep')"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("warning: import.kernels_without_launch = 1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("next: nimble-prof report " + db_), std::string::npos) << r.output;
  const auto report = RunCommand({kProf, "report", db_, "--json"}, "");
  ASSERT_EQ(report.exit_code, 0) << report.output;
  const auto json = RunCommand(kProf + " report --json " + nimble::testing::ShellQuote(db_), /*stdout_only=*/true);
  const nlohmann::json j = nlohmann::json::parse(json.output);
  EXPECT_EQ(j["runs"][0]["iteration_range"], "ProfilerStep");
}

TEST_F(ImportCommandTest, JsonSummary) {
  const auto r = RunCommand(kProf + " import --json " + nimble::testing::ShellQuote(kData + "cuda_graph.json") +
                                " -o " + nimble::testing::ShellQuote(db_),
                            /*stdout_only=*/true);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["format"], "kineto-json");
  EXPECT_EQ(j["run"], 1);
  EXPECT_EQ(j["records"]["kernels"], 8);
  EXPECT_EQ(j["records"]["api_calls"], 6);
  EXPECT_EQ(j["iteration_range"], "");
  EXPECT_EQ(j["next"], "nimble-prof report " + db_);
  bool no_props = false;
  for (const auto& w : j["warnings"]) no_props |= w["name"] == "import.no_device_properties";
  EXPECT_TRUE(no_props) << j.dump(1);
}

TEST_F(ImportCommandTest, ThreadsChangeNothingButTheTimeAndAreChecked) {
  auto summary = [&](const std::string& threads, const std::string& db) {
    return RunCommand(kProf + " import --json --threads " + threads + " " +
                          nimble::testing::ShellQuote(kData + "profiler_steps.json") + " -o " +
                          nimble::testing::ShellQuote((dir_ / db).string()),
                      /*stdout_only=*/true);
  };
  const auto one = summary("1", "one.db"), four = summary("4", "four.db");
  ASSERT_EQ(one.exit_code, 0) << one.output;
  ASSERT_EQ(four.exit_code, 0) << four.output;
  nlohmann::json a = nlohmann::json::parse(one.output), b = nlohmann::json::parse(four.output);
  EXPECT_EQ(a["records"], b["records"]);
  EXPECT_EQ(a["warnings"], b["warnings"]);
  EXPECT_EQ(a["records"]["kernels"], 5);
  for (const std::string bad : {"-1", "x", "100000"}) {
    const auto r = RunCommand({kProf, "import", "--threads", bad, kData + "profiler_steps.json", "-o", db_});
    EXPECT_EQ(r.exit_code, 2) << bad << "\n" << r.output;
    EXPECT_NE(r.output.find("--threads"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(db_)) << bad;
  }
}

TEST_F(ImportCommandTest, BadInputExitsOneAndWritesNothing) {
  const std::string missing = (dir_ / "missing.json").string();
  const auto r = RunCommand({kProf, "import", missing, "-o", db_});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("nimble-prof: error: " + missing), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(db_));
  const auto dir = RunCommand({kProf, "import", dir_.string(), "-o", db_});
  EXPECT_EQ(dir.exit_code, 1) << dir.output;
  EXPECT_NE(dir.output.find("is a directory"), std::string::npos) << dir.output;
  EXPECT_FALSE(fs::exists(db_));
  EXPECT_FALSE(fs::exists(db_ + ".partial"));
}

TEST_F(ImportCommandTest, BadUsageExitsTwo) {
  EXPECT_EQ(RunCommand({kProf, "import", kData + "cuda_graph.json"}).exit_code, 2);  // no -o
  EXPECT_EQ(RunCommand({kProf, "import"}).exit_code, 2);
  EXPECT_EQ(RunCommand({kProf, "import", kData + "cuda_graph.json", "-o", db_, "--frobnicate"}).exit_code, 2);
  EXPECT_FALSE(fs::exists(db_));
}

}  // namespace
}  // namespace nimble::cli
