// On the GPU: the collector's options and its bad cases. A program that exits early, exits non-zero
// or crashes leaves a consistent database holding what ran before; CUPTI failing leaves the program
// running unprofiled and no database; capture limits (kinds, NVTX range, delay) hold.
#include <gtest/gtest.h>

#include <filesystem>

#include "gpu_test_support.h"

namespace nimble::collector::testing {
namespace {

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

void ExpectPartialRun(const RecordedRun& r, int64_t status_stat) {
  EXPECT_EQ(r.command.exit_code, 1) << r.command.output;
  EXPECT_TRUE(Contains(r.command.output, "the run was recorded up to that point")) << r.command.output;
  ASSERT_TRUE(r.loaded) << r.command.output;
  EXPECT_EQ(r.trace.kernels.size(), 5u);  // all synchronized before the program ended
  EXPECT_EQ(r.Stat("collector.status"), status_stat);
  EXPECT_EQ(r.Stat("collector.dropped_records"), 0);
  EXPECT_FALSE(std::filesystem::exists(r.db + ".partial"));
}

TEST(GpuBadCasesTest, EarlyExitWithNonZeroCode) {
  NIMBLE_SKIP_WITHOUT_GPU();
  const auto r = RecordSample("early_exit", {"--kernels", "5", "--how", "exit", "--code", "3"});
  EXPECT_TRUE(Contains(r.command.output, "program exited with code 3")) << r.command.output;
  ExpectPartialRun(r, 0);
}

TEST(GpuBadCasesTest, AbortIsFlushedAndReRaised) {
  NIMBLE_SKIP_WITHOUT_GPU();
  const auto r = RecordSample("early_exit", {"--kernels", "5", "--how", "abort"});
  EXPECT_TRUE(Contains(r.command.output, "killed by signal 6")) << r.command.output;
  ExpectPartialRun(r, 6);
}

TEST(GpuBadCasesTest, SegfaultIsFlushedAndReRaised) {
  NIMBLE_SKIP_WITHOUT_GPU();
  const auto r = RecordSample("early_exit", {"--kernels", "5", "--how", "segv"});
  EXPECT_TRUE(Contains(r.command.output, "killed by signal 11")) << r.command.output;
  ExpectPartialRun(r, 11);
}

TEST(GpuBadCasesTest, SigtermIsFlushedAndReRaised) {
  NIMBLE_SKIP_WITHOUT_GPU();
  const auto r = RecordSample("early_exit", {"--kernels", "5", "--how", "term"});
  EXPECT_TRUE(Contains(r.command.output, "killed by signal 15")) << r.command.output;
  ExpectPartialRun(r, 15);
}

TEST(GpuBadCasesTest, CuptiUnavailableLeavesTheProgramRunningAndNoDatabase) {
  NIMBLE_SKIP_WITHOUT_GPU();
  // The failure is injected where CUPTI would report it; the rest of the path is the real one.
  const auto r = RecordSample("concurrent_streams", {"--iterations", "2"}, {}, "NIMBLE_SIMULATE_CUPTI_FAILURE=1 ");
  EXPECT_EQ(r.command.exit_code, 1) << r.command.output;
  EXPECT_TRUE(Contains(r.command.output, "nimble: CUPTI unavailable: ")) << r.command.output;
  EXPECT_TRUE(Contains(r.command.output, "concurrent_streams: kernels=12")) << "the program did not run";
  EXPECT_TRUE(Contains(r.command.output, "no database was produced")) << r.command.output;
  EXPECT_FALSE(std::filesystem::exists(r.db));
  EXPECT_FALSE(std::filesystem::exists(r.db + ".partial"));
}

TEST(GpuBadCasesTest, KindsLimitWhatIsRecorded) {
  NIMBLE_SKIP_WITHOUT_GPU();
  const auto r = RecordSample("concurrent_streams", {"--iterations", "2"}, {"--kinds", "kernel"});
  ASSERT_TRUE(r.loaded) << r.command.output;
  EXPECT_EQ(r.trace.kernels.size(), 4u * 3);
  EXPECT_TRUE(r.trace.api_calls.empty());
  EXPECT_TRUE(r.trace.ranges.empty());
  EXPECT_TRUE(r.trace.syncs.empty());
}

TEST(GpuBadCasesTest, CaptureRangeKeepsOnlyWhatRanInside) {
  NIMBLE_SKIP_WITHOUT_GPU();
  const auto r = RecordSample("concurrent_streams", {"--iterations", "3", "--warmup", "2"},
                              {"--capture-range", "iteration"});
  ASSERT_TRUE(r.loaded) << r.command.output;
  EXPECT_EQ(r.command.exit_code, 0) << r.command.output;
  EXPECT_EQ(r.trace.kernels.size(), 4u * 3);  // the 2 warm-up rounds ran outside any range
  EXPECT_EQ(r.RangesNamed("iteration"), 3u);
  for (const KernelRecord& k : r.trace.kernels) {
    const bool inside = std::any_of(r.trace.ranges.begin(), r.trace.ranges.end(), [&](const NvtxRange& it) {
      return k.start_ns >= it.start_ns && k.end_ns <= it.end_ns;
    });
    EXPECT_TRUE(inside);
  }
}

TEST(GpuBadCasesTest, StartDelayLongerThanTheProgramRecordsNothingButIsConsistent) {
  NIMBLE_SKIP_WITHOUT_GPU();
  const auto r = RecordSample("concurrent_streams", {"--iterations", "2"}, {"--delay-ms", "600000"});
  ASSERT_TRUE(r.loaded) << r.command.output;
  EXPECT_EQ(r.command.exit_code, 0) << r.command.output;
  EXPECT_TRUE(r.trace.kernels.empty());
  EXPECT_EQ(r.Stat("collector.dropped_records"), 0);
}

}  // namespace
}  // namespace nimble::collector::testing
