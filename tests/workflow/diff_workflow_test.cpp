// The diff workflow on the bundled recorded runs and on databases written here: which runs it picks,
// that a slowed kernel is found and noise is not, the regression gate, its JSON, that it never changes
// the files, and the errors it names.
#include "nimble/workflow/diff.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "../support/diff_databases.h"
#include "../support/iteration_runs.h"
#include "nimble/workflow/diff_json.h"
#include "scratch_dir_test.h"

namespace nimble::workflow {
namespace {

namespace fs = std::filesystem;
using nimble::testing::IterationPlan;
using nimble::testing::Jitter;
using nimble::testing::MakeIterationRun;

// gemm 20 us, relu 10 us, softmax 5 us; each jittered by up to 3%; gemm scaled by `slow`.
IterationPlan Plan(uint32_t seed, double slow = 1.0) {
  IterationPlan plan;
  plan.dur_ns = [=](int it, size_t k) {
    const double base_ns[] = {20000, 10000, 5000};
    return static_cast<int64_t>(base_ns[k] * (k == 0 ? slow : 1.0) * Jitter(seed, it, k, 0.03));
  };
  return plan;
}

DiffOptions Runs(int64_t base, int64_t now) {
  DiffOptions options;
  options.base_run = base;
  options.new_run = now;
  return options;
}

const analysis::FigureDiff* Containing(const std::vector<analysis::FigureDiff>& figures, const std::string& part) {
  for (const analysis::FigureDiff& f : figures) {
    if (f.name.find(part) != std::string::npos) return &f;
  }
  return nullptr;
}

class DiffWorkflowTest : public nimble::testing::ScratchDirTest {
 protected:
  std::string Write(const std::string& name, const IterationPlan& plan) {
    const std::string path = (dir_ / name).string();
    const testing::IterationRun run = MakeIterationRun(plan);
    EXPECT_TRUE(testing::WriteDiffRun(path, run.trace, &run.graph, run.attribution).valid());
    return path;
  }
  static std::string Bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
};

TEST_F(DiffWorkflowTest, ARecordedRunAgainstItsCopyIsUnchangedAndTheFilesAreUntouched) {
  const std::string base = Copy("inception_v3.db", "base.db");
  const std::string now = Copy("inception_v3.db", "new.db");
  const std::string before = Bytes(base);
  auto result = DiffFiles(base, now, {});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->base.samples, 10);
  EXPECT_EQ(result->base.iteration_range, "nimble-prof iteration");
  EXPECT_TRUE(result->diff.ops_compared);
  EXPECT_EQ(result->diff.ops.size(), 120u);
  EXPECT_EQ(result->diff.kernels.size(), 15u);
  EXPECT_FALSE(result->diff.iteration.significant);
  for (const auto& k : result->diff.kernels) EXPECT_EQ(k.change_ns, 0) << k.name;
  EXPECT_TRUE(result->warnings.empty());
  EXPECT_FALSE(CheckRegression(result->diff, 0.0).failed);
  EXPECT_EQ(Bytes(base), before);
  EXPECT_FALSE(fs::exists(base + "-wal"));
}

TEST_F(DiffWorkflowTest, ARecordedRunWithOneKernelSlowedIsFlaggedAndFailsTheGate) {
  const std::string base = Copy("inception_v3.db", "base.db");
  const std::string now = (dir_ / "slowed.db").string();
  // The run's largest kernel by GPU time (465 us of a 5.6 ms iteration), one demangled name.
  const std::string kernel =
      "sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize64x32x64_stage5_warpsize2x2x1_g1_"
      "tensor16x8x8_alignc4_execute_kernel__5x_cudnn";
  ASSERT_TRUE(testing::CopySlowed(base, RunId(1), now, kernel, 1.5).valid());
  auto result = DiffFiles(base, now, {});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  const analysis::FigureDiff* slowed = Containing(result->diff.kernels, kernel);
  ASSERT_NE(slowed, nullptr);
  EXPECT_TRUE(slowed->significant);
  EXPECT_NEAR(*slowed->change_ratio, 0.5, 0.01);
  for (const auto& k : result->diff.kernels) {
    if (&k != slowed) {
      EXPECT_FALSE(k.significant) << k.name;
    }
  }
  EXPECT_TRUE(result->diff.iteration.significant);
  EXPECT_TRUE(result->diff.active.significant);
  const double percent = *result->diff.iteration.change_ratio * 100;
  EXPECT_GT(percent, 1.0);
  const RegressionGate failing = CheckRegression(result->diff, percent / 2);
  EXPECT_TRUE(failing.failed);
  EXPECT_NE(failing.Describe().find("regression gate: FAILED (+"), std::string::npos) << failing.Describe();
  const RegressionGate passing = CheckRegression(result->diff, percent * 2);
  EXPECT_FALSE(passing.failed);
  EXPECT_NE(passing.Describe().find("passed"), std::string::npos) << passing.Describe();
}

TEST_F(DiffWorkflowTest, TwoRunsOfOneFileDefaultToTheLastTwo) {
  const std::string path = (dir_ / "runs.db").string();
  for (const IterationPlan& plan : {Plan(1), Plan(2), Plan(3, 1.3)}) {
    const testing::IterationRun run = MakeIterationRun(plan);
    ASSERT_TRUE(testing::WriteDiffRun(path, run.trace, &run.graph, run.attribution).valid());
  }
  auto last_two = DiffFiles(path, path, {});
  ASSERT_TRUE(last_two.ok()) << last_two.status().ToString();
  EXPECT_EQ(last_two->base.run.id, RunId(2));
  EXPECT_EQ(last_two->now.run.id, RunId(3));
  EXPECT_TRUE(Containing(last_two->diff.kernels, "gemm")->significant);
  EXPECT_TRUE(Containing(last_two->diff.ops, "op_gemm")->significant);
  EXPECT_FALSE(Containing(last_two->diff.kernels, "relu")->significant);

  auto named = DiffFiles(path, path, Runs(1, 2));
  ASSERT_TRUE(named.ok()) << named.status().ToString();
  EXPECT_EQ(named->base.run.id, RunId(1));
  for (const auto& k : named->diff.kernels) EXPECT_FALSE(k.significant) << k.name << ": jitter only";
  EXPECT_FALSE(named->diff.iteration.significant);
}

TEST_F(DiffWorkflowTest, LargeJitterIsNotAChangeAndTheGateSaysWhy) {
  auto noisy = [](uint32_t seed, double shift) {
    IterationPlan plan;
    plan.iterations = 15;
    plan.dur_ns = [=](int it, size_t k) { return static_cast<int64_t>(30000 * shift * Jitter(seed, it, k, 0.25)); };
    return plan;
  };
  auto result = DiffFiles(Write("a.db", noisy(1, 1.0)), Write("b.db", noisy(2, 1.04)), {});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  const RegressionGate gate = CheckRegression(result->diff, 1.0);
  ASSERT_TRUE(gate.change_percent.has_value());
  EXPECT_GT(*gate.change_percent, 1.0) << "the medians should differ by more than the threshold";
  EXPECT_FALSE(gate.failed);
  EXPECT_TRUE(gate.within_noise);
  EXPECT_NE(gate.Describe().find("within the runs' noise"), std::string::npos) << gate.Describe();
}

TEST_F(DiffWorkflowTest, ARunWithoutIterationsIsWarnedAbout) {
  IterationPlan whole = Plan(4);
  whole.mark_iterations = false;
  auto result = DiffFiles(Write("a.db", Plan(5)), Write("b.db", whole), {});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->now.samples, 1);
  EXPECT_TRUE(result->now.iteration_range.empty());
  ASSERT_EQ(result->warnings.size(), 1u);
  EXPECT_NE(result->warnings[0].find("no spread is known"), std::string::npos) << result->warnings[0];
  EXPECT_FALSE(result->diff.iteration.spread_known);
}

TEST_F(DiffWorkflowTest, JsonCarriesEveryFigureAndTheGate) {
  auto result = DiffFiles(Write("a.db", Plan(1)), Write("b.db", Plan(2, 1.3)), {});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  const RegressionGate gate = CheckRegression(result->diff, 5.0);
  const nlohmann::json j = DiffResultToJson(*result, &gate);
  EXPECT_EQ(j["base"]["samples"], 10);
  EXPECT_EQ(j["total"]["iteration"]["significant"], true);
  EXPECT_EQ(j["total"]["iteration"]["change_ns"], result->diff.iteration.change_ns);
  EXPECT_EQ(j["idle_by_cause"].size(), analysis::kNumGapCauses);
  EXPECT_EQ(j["kernels"].size(), 3u);
  EXPECT_EQ(j["ops"].size(), 3u);
  EXPECT_EQ(j["rule"]["noise_mads"], 3);
  EXPECT_EQ(j["gate"]["failed"], gate.failed);
  EXPECT_TRUE(gate.failed);
  EXPECT_FALSE(DiffResultToJson(*result).contains("gate"));
}

TEST_F(DiffWorkflowTest, ErrorsNameTheFileAndTheRun) {
  const std::string good = Copy("concurrent_streams.db", "good.db");
  const std::string missing = (dir_ / "missing.db").string();
  Status s = DiffFiles(good, missing, {}).status();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find(missing), std::string::npos) << s.message();
  const std::string text = (dir_ / "notes.db").string();
  std::ofstream(text) << "not a database at all, just some text that is long enough to have a header\n";
  s = DiffFiles(text, good, {}).status();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find(text), std::string::npos) << s.message();
  s = DiffFiles(good, good, Runs(1, 7)).status();
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_NE(s.message().find(good), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("7"), std::string::npos) << s.message();
  s = DiffFiles(good, good, {}).status();  // one run, named twice
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("needs two runs"), std::string::npos) << s.message();
}

TEST_F(DiffWorkflowTest, OnlyOneOpGraphMeansOpsAreNotCompared) {
  const std::string program = Copy("concurrent_streams.db", "program.db");
  const std::string model = Copy("inception_v3.db", "model.db");
  auto result = DiffFiles(program, model, {});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_FALSE(result->diff.ops_compared);
  bool warned = false;
  for (const std::string& w : result->warnings) warned = warned || w.find("ops are not compared") != std::string::npos;
  EXPECT_TRUE(warned);
  EXPECT_EQ(result->base.path, program);
}

}  // namespace
}  // namespace nimble::workflow
