// `nimble-prof model.pt` end to end on the GPU: the real binary on models the tests build, its report
// and database checked (every kernel attributed, per-op GPU time stored, one window per iteration), and
// the bad inputs that need a GPU to be reached: wrong input rank or size, a model with no GPU ops.
// Skipped where there is no CUDA device (tests/cli covers the no-GPU message).
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "command_runner.h"
#include "nimble/accelerate/cuda_devices.h"
#include "nimble/store/run_reader.h"
#include "test_models.h"

namespace nimble::testing {

using namespace ::nimble::accelerate;  // NOLINT: the module under test
namespace {

const std::string kProf = std::string(NIMBLE_BINARY_DIR) + "/cli/nimble-prof";

class ModelProfileGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (CudaDeviceCount() == 0) GTEST_SKIP() << "no CUDA device";
    db_ = TestDir() + "/profile_" + ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".db";
  }
  CommandResult Prof(const std::vector<std::string>& args, bool stdout_only = false) {
    std::vector<std::string> all = {kProf};
    all.insert(all.end(), args.begin(), args.end());
    return RunCommand(JoinCommand(all), stdout_only);
  }
  std::string db_;
};

void ExpectFailure(const CommandResult& r, int exit_code, const std::vector<std::string>& fragments) {
  EXPECT_EQ(r.exit_code, exit_code) << r.output;
  for (const std::string& f : fragments) EXPECT_NE(r.output.find(f), std::string::npos) << "missing '" << f << "' in " << r.output;
}

TEST_F(ModelProfileGpuTest, ProfilesAForkJoinModelWithEveryKernelAttributed) {
  const std::string model = SaveTestModel(TestModel::kForkJoin);
  const CommandResult r = Prof({model, "--input", "1x3x8x8", "-o", db_, "--iters", "4", "--warmup", "2", "--timed-iters", "6", "--json", "-q"},
                               /*stdout_only=*/true);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json report = nlohmann::json::parse(r.output);
  const nlohmann::json& run = report["runs"][0];
  EXPECT_EQ(run["run"]["mode"], "eager");
  EXPECT_EQ(run["run"]["iterations"], 4);
  EXPECT_EQ(run["iteration_range"], "nimble-prof iteration");
  EXPECT_EQ(run["devices"][0]["iterations"].size(), 4u);
  EXPECT_GT(run["devices"][0]["run"]["active_ns"].get<int64_t>(), 0);
  EXPECT_EQ(run["profile"]["attribution"]["unattributed"], 0) << run["profile"].dump(2);
  EXPECT_GT(run["profile"]["latency_ns"].get<int64_t>(), 0);
  EXPECT_EQ(run["profile"]["timed_wall_ns"].size(), 6u);  // --timed-iters, not --iters
  EXPECT_EQ(run["profile"]["forward_timed_ns"].size(), 6u);
  EXPECT_LT(run["profile"]["eager_vs_forward_max_abs_diff"].get<double>(), 1e-4);
  EXPECT_EQ(run["profile"]["cupti_libraries"].size(), 1u) << run["profile"]["cupti_libraries"].dump();
  EXPECT_GE(run["graph"]["width"].get<int>(), 2);  // three branches after the first conv
  EXPECT_GT(run["prediction"]["aot_multi_ns"].get<int64_t>(), 0);

  auto reader = store::RunReader::Open(db_);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  const RunId id(run["run"]["id"].get<int64_t>());
  auto trace = (*reader)->LoadTrace(id);
  auto graph = (*reader)->LoadGraph(id);
  auto attribution = (*reader)->LoadAttribution(id);
  ASSERT_TRUE(trace.ok() && graph.ok() && attribution.ok());
  EXPECT_EQ(attribution->size(), trace->kernels.size());
  std::vector<int> kernels_per_op(graph->ops.size(), 0);
  for (const KernelAttribution& a : *attribution) ++kernels_per_op[static_cast<size_t>(a.op.value())];
  for (const Op& op : graph->ops) {
    EXPECT_EQ(kernels_per_op[static_cast<size_t>(op.id.value())] % 4, 0) << op.name << ": same kernels every iteration";
    EXPECT_GT(op.gpu_time_ns, 0) << op.name;
  }
}

TEST_F(ModelProfileGpuTest, SubcommandSpellingAndDefaultOutputWork) {
  const std::string model = SaveTestModel(TestModel::kChain);
  const std::string dir = std::filesystem::path(model).parent_path().string();
  const CommandResult r =
      RunCommand("cd " + ShellQuote(dir) + " && " + ShellQuote(kProf) + " profile " + ShellQuote(model) +
                 " --input 1x3x8x8 --iters 2 --warmup 1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("iteration 2/2"), std::string::npos) << r.output;  // progress
  EXPECT_NE(r.output.find("critical path"), std::string::npos) << r.output;
  EXPECT_TRUE(std::filesystem::exists(dir + "/" + std::filesystem::path(model).stem().string() + ".nimble.db"));
}

TEST_F(ModelProfileGpuTest, WrongInputRankNamesTheShapeAndTheOp) {
  ExpectFailure(Prof({SaveTestModel(TestModel::kChain), "--input", "3x8", "-o", db_}), 2,
                {"[3,8]", "do not fit the model", "conv"});  // on CUDA the conv is fused with its relu
  EXPECT_FALSE(std::filesystem::exists(db_));
}

TEST_F(ModelProfileGpuTest, WrongInputSizeNamesWhatTheOpExpected) {
  ExpectFailure(Prof({SaveTestModel(TestModel::kChain), "--input", "1x3x16x16", "-o", db_}), 2,
                {"[1,3,16,16]", "aten::matmul"});
}

TEST_F(ModelProfileGpuTest, WrongInputCount) {
  ExpectFailure(Prof({SaveTestModel(TestModel::kTwoInputs), "--input", "2x3", "-o", db_}), 2,
                {"forward takes 2 input(s)"});
}

TEST_F(ModelProfileGpuTest, ModelWithNoGpuOpsIsRefused) {
  ExpectFailure(Prof({SaveTestModel(TestModel::kViewsOnly), "--input", "2x3", "-o", db_}), 1,
                {"no ops that launch GPU work"});
  EXPECT_FALSE(std::filesystem::exists(db_));
}

TEST_F(ModelProfileGpuTest, CorruptModelIsRefusedOnTheGpuToo) {
  ExpectFailure(Prof({WriteTruncatedModel(), "--input", "1x3x8x8", "-o", db_}), 1, {"corrupt or truncated"});
}

}  // namespace
}  // namespace nimble::testing
