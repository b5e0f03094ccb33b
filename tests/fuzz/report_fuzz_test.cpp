// The bounded fuzz run of the test suite: damaged copies of both bundled runs never crash, hang or
// report something other than the pristine report with exit 0. bench/db_fuzz runs the same for longer.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "db_fuzzer.h"

namespace nimble::fuzz {
namespace {

void ExpectNoDefect(const std::string& name, int64_t mutants, uint64_t seed) {
  const auto dir = std::filesystem::temp_directory_path() / ("nimble_fuzz_" + std::to_string(::getpid()) + name);
  const FuzzCounts c = FuzzReports({.seed_db = std::string(NIMBLE_SOURCE_DIR) + "/samples/recorded/" + name,
                                    .work_dir = dir.string(), .mutants = mutants, .seed = seed});
  std::filesystem::remove_all(dir);
  std::string examples;
  for (const std::string& e : c.examples) examples += "\n  " + e;
  EXPECT_EQ(c.tried, mutants) << examples;
  EXPECT_EQ(c.crashes, 0) << examples;
  EXPECT_EQ(c.hangs, 0) << examples;
  EXPECT_EQ(c.wrong, 0) << examples;
  // The damage must reach the reader often enough for the run to mean something.
  EXPECT_GT(c.errors, mutants / 4) << "errors " << c.errors << ", same " << c.same;
}

TEST(ReportFuzzTest, DamagedConcurrentStreamsRunsNeverReportWrongly) { ExpectNoDefect("concurrent_streams.db", 60, 20261124); }

TEST(ReportFuzzTest, DamagedInceptionRunsNeverReportWrongly) { ExpectNoDefect("inception_v3.db", 40, 7); }

}  // namespace
}  // namespace nimble::fuzz
