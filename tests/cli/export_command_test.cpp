// End-to-end tests of `nimble-prof export --format chrome`: the real binary on a copy of a bundled
// recorded run; exit codes (0, 1 for bad input, 2 for bad usage), errors that name the file, and no
// output file left behind by a failure.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "command_runner.h"

namespace nimble::cli {
namespace {

namespace fs = std::filesystem;
using nimble::testing::RunCommand;

const std::string kProf = std::string(NIMBLE_BINARY_DIR) + "/cli/nimble-prof";

class ExportCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("nimble_export_command_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    db_ = (dir_ / "run.db").string();
    fs::copy_file(fs::path(NIMBLE_SOURCE_DIR) / "samples/recorded/concurrent_streams.db", db_);
    out_ = (dir_ / "trace.json").string();
  }
  void TearDown() override { fs::remove_all(dir_); }
  void ExpectNoOutput() const {
    EXPECT_FALSE(fs::exists(out_));
    EXPECT_FALSE(fs::exists(out_ + ".partial"));
  }
  fs::path dir_;
  std::string db_, out_;
};

TEST_F(ExportCommandTest, WritesATraceThatParses) {
  const auto r = RunCommand({kProf, "export", "--format", "chrome", "--quiet", db_, "-o", out_});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("44 kernels"), std::string::npos) << r.output;
  std::ifstream in(out_);
  const nlohmann::json trace = nlohmann::json::parse(in, nullptr, false);
  ASSERT_FALSE(trace.is_discarded());
  EXPECT_GT(trace["traceEvents"].size(), 44u);
  EXPECT_FALSE(fs::exists(out_ + ".partial"));
}

TEST_F(ExportCommandTest, BadInputExitsOneNamingTheFile) {
  const std::string missing = (dir_ / "missing.db").string();
  auto r = RunCommand({kProf, "export", missing, "-o", out_});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(missing), std::string::npos) << r.output;
  ExpectNoOutput();

  const std::string garbage = (dir_ / "garbage.db").string();
  { std::ofstream(garbage) << "this is not a run database, just text that is long enough to look like a file"; }
  r = RunCommand({kProf, "export", garbage, "-o", out_});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(garbage), std::string::npos) << r.output;
  ExpectNoOutput();

  r = RunCommand({kProf, "export", "--run", "99", db_, "-o", out_});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(db_), std::string::npos) << r.output;
  ExpectNoOutput();
}

TEST_F(ExportCommandTest, BadUsageExitsTwo) {
  EXPECT_EQ(RunCommand({kProf, "export", db_}).exit_code, 2);  // no -o
  EXPECT_EQ(RunCommand({kProf, "export", "--format", "pprof", db_, "-o", out_}).exit_code, 2);
  EXPECT_EQ(RunCommand({kProf, "export", "--run", "one", db_, "-o", out_}).exit_code, 2);
  ExpectNoOutput();
}

}  // namespace
}  // namespace nimble::cli
