// `nimble-prof record` where no GPU is needed: every bad case must end with a clear message, a
// non-zero exit and no database (or an untouched one), and the program must not run when the
// output cannot be written.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "command_runner.h"

namespace nimble::collector {
namespace {

namespace fs = std::filesystem;
using ::nimble::testing::RunCommand;

class RecordCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("nimble_record_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Db() const { return (dir_ / "run.db").string(); }
  bool NoDatabaseLeft() const { return !fs::exists(Db()) && !fs::exists(Db() + ".partial"); }

  fs::path dir_;
  const std::string prof_ = NIMBLE_PROF_PATH;
};

TEST_F(RecordCommandTest, MissingProgram) {
  const auto r = RunCommand({prof_, "record", "-o", Db(), "--", "/nonexistent/program", "--flag"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("program not found: /nonexistent/program"), std::string::npos) << r.output;
  EXPECT_TRUE(NoDatabaseLeft());
}

TEST_F(RecordCommandTest, MissingProgramOnPath) {
  const auto r = RunCommand({prof_, "record", "-o", Db(), "--", "no-such-program-nimble"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("program not found: no-such-program-nimble"), std::string::npos) << r.output;
}

TEST_F(RecordCommandTest, UnwritableOutputStopsBeforeTheProgramRuns) {
  const fs::path marker = dir_ / "ran";
  const auto r = RunCommand({prof_, "record", "-o", (dir_ / "missing" / "run.db").string(), "--", "/bin/sh", "-c",
                             "touch " + marker.string()});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("cannot write"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("does not exist"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(marker)) << "the program ran although nothing could be recorded";
}

TEST_F(RecordCommandTest, OutputThatIsADirectory) {
  const auto r = RunCommand({prof_, "record", "-o", dir_.string(), "--", "/bin/true"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("it is a directory"), std::string::npos) << r.output;
}

TEST_F(RecordCommandTest, UnknownActivityKindIsAUsageError) {
  const auto r = RunCommand({prof_, "record", "--kinds", "kernel,graph", "-o", Db(), "--", "/bin/true"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("unknown activity kind 'graph'"), std::string::npos) << r.output;
}

TEST_F(RecordCommandTest, UnknownGraphTraceModeIsAUsageError) {
  const auto r = RunCommand({prof_, "record", "--graph-trace", "nodes", "-o", Db(), "--", "/bin/true"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--graph-trace"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(Db()));
}

TEST_F(RecordCommandTest, UnknownKernelTimestampSourceIsAUsageError) {
  const auto r = RunCommand({prof_, "record", "--kernel-timestamps", "hw", "-o", Db(), "--", "/bin/true"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--kernel-timestamps"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(Db()));
}

TEST_F(RecordCommandTest, GraphLevelTraceWithACaptureWindowIsAUsageError) {
  for (const std::vector<std::string>& gate : {std::vector<std::string>{"--capture-range", "replay"},
                                                std::vector<std::string>{"--delay-ms", "100"}}) {
    std::vector<std::string> args = {prof_, "record", "--graph-trace", "graph", gate[0], gate[1], "-o", Db(), "--",
                                     "/bin/true"};
    const auto r = RunCommand(args);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("cannot be combined with --delay-ms or --capture-range"), std::string::npos) << r.output;
    EXPECT_FALSE(std::filesystem::exists(Db()));
  }
}

TEST_F(RecordCommandTest, NoProgramIsAUsageError) {
  const auto r = RunCommand({prof_, "record", "-o", Db()});
  EXPECT_EQ(r.exit_code, 2) << r.output;
}

TEST_F(RecordCommandTest, ProgramThatNeverUsesCudaProducesNoDatabase) {
  const auto r = RunCommand({prof_, "record", "-o", Db(), "--", "/bin/true"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("no database was produced"), std::string::npos) << r.output;
  EXPECT_TRUE(NoDatabaseLeft());
}

TEST_F(RecordCommandTest, FailingProgramIsReported) {
  const auto r = RunCommand({prof_, "record", "-o", Db(), "--", "/bin/sh", "-c", "exit 3"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("program exited with code 3"), std::string::npos) << r.output;
  EXPECT_TRUE(NoDatabaseLeft());
}

TEST_F(RecordCommandTest, KilledProgramIsReported) {
  const auto r = RunCommand({prof_, "record", "-o", Db(), "--", "/bin/sh", "-c", "kill -KILL $$"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("killed by signal 9"), std::string::npos) << r.output;
  EXPECT_TRUE(NoDatabaseLeft());
}

TEST_F(RecordCommandTest, CuptiUnavailableLetsTheProgramRunUnprofiled) {
  if (dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL) != nullptr) {
    GTEST_SKIP() << "a CUDA driver is installed: CUPTI can start here (the gpu tests cover this case)";
  }
  const auto r = RunCommand({INJECT_HOST_PATH, INJECT_LIBRARY_PATH}, "NIMBLE_OUTPUT=" + Db() + " ");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("nimble: CUPTI unavailable: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("InitializeInjection returned 1"), std::string::npos) << r.output;
  EXPECT_TRUE(NoDatabaseLeft());
}

}  // namespace
}  // namespace nimble::collector
