// The Diff tab's model: runs loaded as compare mode loads them carry their iteration samples, and
// DescribeDiff shows exactly the numbers `nimble-prof diff` computes (workflow::DiffFiles) on the same
// files: a slowed kernel and the total flagged, the rest not; a run loaded without samples is named.
#include "nimble/gui/run_diff_view.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "../support/diff_databases.h"
#include "../support/iteration_runs.h"
#include "gui_test_runs.h"
#include "nimble/gui/palette.h"
#include "nimble/gui/run_loader.h"
#include "nimble/workflow/diff.h"

namespace nimble::gui {
namespace {

// gemm 20 us, relu 10 us, softmax 5 us, jittered by up to 3%; gemm scaled by `slow`.
nimble::testing::IterationPlan Plan(uint32_t seed, double slow) {
  nimble::testing::IterationPlan plan;
  plan.dur_ns = [=](int it, size_t k) {
    const double base_ns[] = {20000, 10000, 5000};
    return static_cast<int64_t>(base_ns[k] * (k == 0 ? slow : 1.0) * nimble::testing::Jitter(seed, it, k, 0.03));
  };
  return plan;
}

void ExpectSameFigure(const analysis::FigureDiff& gui, const analysis::FigureDiff& cli) {
  EXPECT_EQ(gui.name, cli.name);
  EXPECT_EQ(gui.base.median_ns, cli.base.median_ns) << gui.name;
  EXPECT_EQ(gui.now.median_ns, cli.now.median_ns) << gui.name;
  EXPECT_EQ(gui.noise_ns, cli.noise_ns) << gui.name;
  EXPECT_EQ(gui.significant, cli.significant) << gui.name;
}

class RunDiffViewTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::MakeScratchDir("run_diff_view"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& name, const nimble::testing::IterationPlan& plan) {
    const std::string path = dir_ + "/" + name;
    const nimble::testing::IterationRun run = nimble::testing::MakeIterationRun(plan);
    EXPECT_TRUE(nimble::testing::WriteDiffRun(path, run.trace, &run.graph, run.attribution).valid());
    return path;
  }
  static LoadedRun Load(const std::string& path, bool samples) {
    LoadOptions options;
    options.diff_samples = samples;
    auto loaded = LoadRun(path, RunId(1), options);
    EXPECT_TRUE(loaded.ok()) << loaded.status().ToString();
    return loaded.ok() ? std::move(*loaded) : LoadedRun();
  }

  std::string dir_;
};

TEST_F(RunDiffViewTest, ShowsTheNumbersOfTheCommandLine) {
  const std::string base = Write("base.db", Plan(1, 1.0));
  const std::string now = Write("new.db", Plan(2, 1.3));
  auto view = DescribeDiff(Load(base, true), Load(now, true));
  ASSERT_TRUE(view.ok()) << view.status().ToString();
  auto cli = workflow::DiffFiles(base, now, {});
  ASSERT_TRUE(cli.ok()) << cli.status().ToString();
  const analysis::RunDiff& g = view->diff;
  const analysis::RunDiff& c = cli->diff;
  ExpectSameFigure(g.iteration, c.iteration);
  ExpectSameFigure(g.active, c.active);
  ExpectSameFigure(g.idle, c.idle);
  for (size_t i = 0; i < analysis::kNumGapCauses; ++i) ExpectSameFigure(g.idle_by_cause[i], c.idle_by_cause[i]);
  ASSERT_EQ(g.kernels.size(), c.kernels.size());
  for (size_t i = 0; i < g.kernels.size(); ++i) ExpectSameFigure(g.kernels[i], c.kernels[i]);
  ASSERT_EQ(g.ops.size(), c.ops.size());
  for (size_t i = 0; i < g.ops.size(); ++i) ExpectSameFigure(g.ops[i], c.ops[i]);

  // The rows: totals, causes, then only the significant kernels and ops.
  std::vector<std::string> labels;
  for (const DiffRow& row : view->rows) labels.push_back(row.label);
  const std::vector<std::string> expected = {"Total (median per iteration)",
                                             "iteration time",
                                             "GPU active time",
                                             "GPU idle time",
                                             "Idle time by cause",
                                             std::string(GapCauseLabel(analysis::GapCause::kHostLaunchLate)),
                                             std::string(GapCauseLabel(analysis::GapCause::kSynchronization)),
                                             std::string(GapCauseLabel(analysis::GapCause::kMemoryCopy)),
                                             std::string(GapCauseLabel(analysis::GapCause::kOther)),
                                             "Kernels: 1 of 3 changed significantly",
                                             "gemm",
                                             "Ops: 1 of 3 changed significantly",
                                             "op_gemm"};
  EXPECT_EQ(labels, expected);
  EXPECT_TRUE(view->rows[1].significant);
  EXPECT_EQ(view->rows[1].verdict, "significant");
  EXPECT_EQ(view->rows[10].percent.substr(0, 3), "+30") << view->rows[10].percent;
  EXPECT_NE(view->title.find("10 iterations"), std::string::npos) << view->title;
}

TEST_F(RunDiffViewTest, ARunLoadedWithoutSamplesIsNamed) {
  const std::string base = Write("base.db", Plan(1, 1.0));
  const LoadedRun with = Load(base, true);
  const LoadedRun without = Load(base, false);
  EXPECT_FALSE(without.diff_samples.has_value());
  const Status s = DescribeDiff(with, without).status();
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find(without.Label()), std::string::npos) << s.message();
  auto same = DescribeDiff(with, with);
  ASSERT_TRUE(same.ok());
  for (const DiffRow& row : same->rows) EXPECT_FALSE(row.significant) << row.label;
}

}  // namespace
}  // namespace nimble::gui
