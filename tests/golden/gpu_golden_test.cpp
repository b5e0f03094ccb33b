// On the GPU: a fresh recording of the concurrent_streams sample, reported as JSON with its timings
// and recording details masked, must equal gpu_concurrent_streams.json.masked, the file the CPU case
// of the same name derives from samples/recorded/concurrent_streams.db. Skips without a device.
#include <gtest/gtest.h>

#include "golden_compare.h"
#include "golden_files.h"
#include "gpu_test_support.h"

namespace nimble::golden {
namespace {

namespace fs = std::filesystem;

// The command samples/recorded/concurrent_streams.db was recorded with, so that both compare alike.
TEST(GpuGoldenTest, ConcurrentStreamsReportMatchesTheRecordedSample) {
  NIMBLE_SKIP_WITHOUT_GPU();
  const GoldenCase* c = FindCase("gpu_concurrent_streams.json.masked");
  ASSERT_NE(c, nullptr) << "cases.txt must hold the CPU case that derives this expected file";
  const auto recorded = collector::testing::RecordSample(
      "concurrent_streams", {"--streams", "4", "--iterations", "10", "--warmup", "1"},
      {"--iteration-range", "iteration"});
  ASSERT_EQ(recorded.command.exit_code, 0) << recorded.command.output;
  ASSERT_TRUE(recorded.loaded) << recorded.command.output;

  // The case copies its input by name from `inputs`: give it the fresh recording under that name.
  const fs::path inputs = fs::path(recorded.db).parent_path() / "inputs";
  fs::create_directories(inputs);
  fs::copy_file(recorded.db, inputs / c->input, fs::copy_options::overwrite_existing);
  GoldenPaths paths = DefaultPaths();
  paths.inputs = inputs;
  const auto actual = RunGoldenCase(*c, paths);
  fs::remove_all(fs::path(recorded.db).parent_path());
  ASSERT_TRUE(actual.ok()) << actual.status().ToString();

  const fs::path expected = ExpectedDir() / c->expected;
  if (const auto mismatch = DescribeMismatch(ReadFile(expected), *actual)) {
    ADD_FAILURE() << expected.string() << ":\n"
                  << *mismatch
                  << "Timings are masked, so what differs is structure or a count (kernels per stream, iterations, "
                     "streams). The file is derived on CPU from samples/recorded/concurrent_streams.db; if the "
                     "sample program changed, re-record that database and run tools/update_goldens.sh.";
  }
}

}  // namespace
}  // namespace nimble::golden
