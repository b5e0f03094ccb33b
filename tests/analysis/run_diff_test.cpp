// The run diff: the significance rule on hand-made samples, whole runs built from synthetic traces
// (a slowed kernel, jitter, kernels in one run only, different iteration counts, no iterations, ops),
// and properties on random runs checked against a brute-force per-iteration sum (kernels) and the
// report's own op weighing one window at a time (ops).
#include "nimble/analysis/run_diff.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>

#include "../support/iteration_runs.h"
#include "nimble/analysis/op_attribution.h"

namespace nimble::analysis {
namespace {

using nimble::testing::IterationPlan;
using nimble::testing::IterationRun;
using nimble::testing::Jitter;
using nimble::testing::MakeIterationRun;

// A run with its report, kept together so that the diff input's pointers stay valid.
struct Built {
  IterationRun run;
  Report report;
  RunDiffInput Input(bool with_graph = true) const {
    return {&run.trace, &report, with_graph ? &run.graph : nullptr,
            with_graph ? std::span<const KernelAttribution>(run.attribution) : std::span<const KernelAttribution>()};
  }
};

Built Build(const IterationPlan& plan) {
  Built b{MakeIterationRun(plan), {}};
  ReportOptions options;
  options.iteration_range = plan.mark_iterations ? "iteration" : "";
  auto report = BuildReport({&b.run.trace, nullptr, {}, nullptr}, options);
  EXPECT_TRUE(report.ok()) << report.status().ToString();
  if (report.ok()) b.report = std::move(*report);
  return b;
}

RunDiff Diff(const Built& base, const Built& now) {
  auto diff = DiffRuns(base.Input(), now.Input());
  EXPECT_TRUE(diff.ok()) << diff.status().ToString();
  return diff.ok() ? std::move(*diff) : RunDiff{};
}

const FigureDiff* Named(const std::vector<FigureDiff>& figures, const std::string& name) {
  for (const FigureDiff& f : figures) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

// gemm 20 us, relu 10 us, softmax 5 us, each jittered by up to `fraction`; `slow` scales gemm.
IterationPlan Jittered(uint32_t seed, double fraction, double slow = 1.0, int iterations = 10) {
  IterationPlan plan;
  plan.iterations = iterations;
  plan.dur_ns = [=](int it, size_t k) {
    const double base_ns[] = {20000, 10000, 5000};
    return static_cast<int64_t>(base_ns[k] * (k == 0 ? slow : 1.0) * Jitter(seed, it, k, fraction));
  };
  return plan;
}

std::vector<const FigureDiff*> AllFigures(const RunDiff& d) {
  std::vector<const FigureDiff*> out = {&d.iteration, &d.active, &d.idle};
  for (const FigureDiff& f : d.idle_by_cause) out.push_back(&f);
  for (const FigureDiff& f : d.kernels) out.push_back(&f);
  for (const FigureDiff& f : d.ops) out.push_back(&f);
  return out;
}

TEST(RunDiffTest, MedianAbsoluteDeviationUsesTheSharedMedian) {
  const std::vector<int64_t> samples = {4, 1, 100, 3, 2};
  const SeriesStats s = StatsOf(samples);
  EXPECT_EQ(s.samples, 5);
  EXPECT_EQ(s.median_ns, 3);
  EXPECT_EQ(s.mad_ns, 1);  // deviations 1 2 97 0 1
  EXPECT_EQ(StatsOf(std::vector<int64_t>{}).samples, 0);
}

TEST(RunDiffTest, AChangeInsideTheNoiseBandIsNotSignificantThoughLargeEnough) {
  std::vector<int64_t> base, now;
  for (int i = 0; i < 10; ++i) {
    base.push_back(i % 2 ? 110000 : 100000);
    now.push_back(base.back() + 5000);
  }
  const FigureDiff d = DiffFigure("k", base, now, {});
  EXPECT_EQ(d.base.mad_ns, 10000);
  EXPECT_EQ(d.change_ns, 5000);  // past 100 ns and 1%, but within 3 MADs
  EXPECT_EQ(d.noise_ns, 30000);
  EXPECT_TRUE(d.spread_known);
  EXPECT_FALSE(d.significant);
  EXPECT_EQ(VerdictOf(d), DiffVerdict::kNoise);
  EXPECT_EQ(VerdictOf(DiffFigure("k", base, base, {})), DiffVerdict::kSame);
  for (int64_t& v : now) v += 30000;  // 35 us out: past the band
  EXPECT_TRUE(DiffFigure("k", base, now, {}).significant);
  EXPECT_EQ(DiffVerdictName(VerdictOf(DiffFigure("k", base, now, {}))), "significant");
}

TEST(RunDiffTest, IdenticalRunsHaveNoSignificantChange) {
  const Built run = Build(Jittered(1, 0.05));
  const RunDiff d = Diff(run, run);
  EXPECT_EQ(d.base_samples, 10);
  EXPECT_EQ(d.kernels.size(), 3u);
  EXPECT_TRUE(d.ops_compared);
  for (const FigureDiff* f : AllFigures(d)) {
    EXPECT_EQ(f->change_ns, 0) << f->name;
    EXPECT_FALSE(f->significant) << f->name;
  }
}

TEST(RunDiffTest, AKernelThirtyPercentSlowerIsFlaggedWithTheTotalOthersAreNot) {
  const RunDiff d = Diff(Build(Jittered(1, 0.03)), Build(Jittered(2, 0.03, 1.3)));
  const FigureDiff* gemm = Named(d.kernels, "gemm");
  ASSERT_NE(gemm, nullptr);
  EXPECT_TRUE(gemm->significant);
  EXPECT_NEAR(*gemm->change_ratio, 0.3, 0.05);
  EXPECT_TRUE(Named(d.ops, "op_gemm")->significant);
  for (const char* other : {"relu", "softmax"}) {
    EXPECT_FALSE(Named(d.kernels, other)->significant) << other;
    EXPECT_NE(Named(d.kernels, other)->change_ns, 0) << other << ": the runs' jitter differs, the test needs it";
    EXPECT_FALSE(Named(d.ops, std::string("op_") + other)->significant) << other;
  }
  EXPECT_TRUE(d.iteration.significant);
  EXPECT_TRUE(d.active.significant);
  EXPECT_GT(d.iteration.change_ns, 5000);
  EXPECT_FALSE(d.idle.significant);  // the gaps did not change
  const std::vector<const FigureDiff*> top = TopChanges(d.kernels, 5);
  ASSERT_EQ(top.size(), 1u);
  EXPECT_EQ(top[0]->name, "gemm");
}

TEST(RunDiffTest, JitterInsideTheSpreadIsNotFlagged) {
  // +-8% jitter in both runs, each seed its own; the medians move, but within three MADs.
  const RunDiff d = Diff(Build(Jittered(3, 0.08, 1.0, 20)), Build(Jittered(4, 0.08, 1.0, 20)));
  int moved = 0;
  for (const FigureDiff* f : AllFigures(d)) {
    EXPECT_FALSE(f->significant) << f->name << " changed " << f->change_ns << " ns, noise " << f->noise_ns;
    if (std::abs(f->change_ns) >= 100) ++moved;
  }
  EXPECT_GT(moved, 3) << "the medians should move by more than the absolute minimum";
  EXPECT_TRUE(TopChanges(d.kernels, 10).empty());
}

TEST(RunDiffTest, KernelsInOneRunOnlyCountAsZeroInTheOther) {
  IterationPlan base = Jittered(5, 0.02);
  IterationPlan now = base;
  now.kernels = {"gemm", "relu", "layernorm"};  // softmax replaced
  const RunDiff d = Diff(Build(base), Build(now));
  const FigureDiff* gone = Named(d.kernels, "softmax");
  const FigureDiff* added = Named(d.kernels, "layernorm");
  ASSERT_NE(gone, nullptr);
  ASSERT_NE(added, nullptr);
  EXPECT_EQ(gone->presence, Presence::kOnlyBase);
  EXPECT_EQ(added->presence, Presence::kOnlyNew);
  EXPECT_EQ(Named(d.kernels, "gemm")->presence, Presence::kBoth);
  EXPECT_EQ(gone->now.samples, 10);  // ten zeros
  EXPECT_EQ(gone->now.median_ns, 0);
  EXPECT_DOUBLE_EQ(*gone->change_ratio, -1.0);
  EXPECT_FALSE(added->change_ratio.has_value());
  EXPECT_EQ(added->change_ns, added->now.median_ns);
  EXPECT_TRUE(gone->significant);
  EXPECT_TRUE(added->significant);
  EXPECT_FALSE(Named(d.kernels, "gemm")->significant);
  EXPECT_EQ(Named(d.ops, "op_softmax")->presence, Presence::kOnlyBase);
}

TEST(RunDiffTest, RunsWithDifferentIterationCounts) {
  const RunDiff d = Diff(Build(Jittered(6, 0.03, 1.0, 5)), Build(Jittered(7, 0.03, 1.3, 12)));
  EXPECT_EQ(d.base_samples, 5);
  EXPECT_EQ(d.new_samples, 12);
  EXPECT_EQ(Named(d.kernels, "gemm")->base.samples, 5);
  EXPECT_EQ(Named(d.kernels, "gemm")->now.samples, 12);
  EXPECT_TRUE(Named(d.kernels, "gemm")->significant);
  EXPECT_FALSE(Named(d.kernels, "relu")->significant);
  EXPECT_TRUE(d.iteration.significant);
}

TEST(RunDiffTest, ARunWithoutIterationsIsOneSampleWithNoSpread) {
  IterationPlan whole = Jittered(8, 0.03, 1.3);
  whole.mark_iterations = false;
  const RunDiff d = Diff(Build(Jittered(9, 0.03)), Build(whole));
  EXPECT_EQ(d.new_samples, 1);
  EXPECT_FALSE(d.iteration.spread_known);
  EXPECT_EQ(d.iteration.noise_ns, 0);
  // One sample is the whole run: ten iterations' worth of time against one iteration's.
  EXPECT_TRUE(d.iteration.significant);
  EXPECT_GT(*d.iteration.change_ratio, 5.0);
  // Without spread, the size thresholds alone decide.
  const std::vector<int64_t> one = {100000};
  const std::vector<int64_t> a_bit_more = {100500};
  EXPECT_FALSE(DiffFigure("k", one, a_bit_more, {}).significant);  // under 1%
  EXPECT_EQ(VerdictOf(DiffFigure("k", one, a_bit_more, {})), DiffVerdict::kTooSmall);
  EXPECT_TRUE(DiffFigure("k", one, std::vector<int64_t>{102000}, {}).significant);
}

TEST(RunDiffTest, OpsAreComparedOnlyWhenBothRunsHaveAGraph) {
  const Built a = Build(Jittered(10, 0.02));
  auto d = DiffRuns(a.Input(true), a.Input(false));
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_FALSE(d->ops_compared);
  EXPECT_TRUE(d->ops.empty());
  EXPECT_EQ(d->kernels.size(), 3u);
}

TEST(RunDiffTest, ARunWithoutGpuActivityIsAnErrorNamingItsSide) {
  const Built a = Build(Jittered(11, 0.02));
  const Trace empty;
  const Report nothing;
  const Status s = DiffRuns(a.Input(), {&empty, &nothing, nullptr, {}}).status();
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("new run"), std::string::npos) << s.message();
}

// Random runs: kernels drawn from a small set of names (some missing from some iterations), random
// iteration counts, sometimes no iteration windows.
IterationPlan RandomPlan(std::mt19937& rng) {
  IterationPlan plan;
  std::uniform_int_distribution<int> iterations(1, 8), kernels(1, 5), dur(0, 6);
  plan.iterations = iterations(rng);
  plan.mark_iterations = rng() % 4 != 0;
  const std::vector<std::string> names = {"a", "b", "c", "d", "e", "f"};
  plan.kernels.clear();
  for (int k = kernels(rng); k > 0; --k) plan.kernels.push_back(names[rng() % names.size()]);
  std::vector<int64_t> durations;
  for (int i = 0; i < plan.iterations * static_cast<int>(plan.kernels.size()); ++i) durations.push_back(dur(rng) * 700);
  const size_t per = plan.kernels.size();
  plan.dur_ns = [durations, per](int it, size_t k) { return durations[static_cast<size_t>(it) * per + k]; };
  return plan;
}

// Per iteration window, the summed durations of the kernels named `name` that start in it: a plain
// loop over windows and kernels.
std::vector<int64_t> BruteForceSeries(const Built& b, const std::string& name) {
  const DeviceReport& dev = b.report.devices.front();
  std::vector<int64_t> out;
  for (const TimelineMetrics& w : dev.iterations) {
    int64_t sum = 0;
    for (const KernelRecord& k : b.run.trace.kernels) {
      if (b.run.trace.strings.Get(k.name) == name && k.start_ns >= w.window.start_ns && k.start_ns < w.window.end_ns) {
        sum += k.dur_ns();
      }
    }
    out.push_back(sum);
  }
  if (dev.iterations.empty()) {
    int64_t sum = 0;
    for (const KernelRecord& k : b.run.trace.kernels) sum += b.run.trace.strings.Get(k.name) == name ? k.dur_ns() : 0;
    out.push_back(sum);
  }
  return out;
}

int64_t SortedMedian(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Per op (keyed as SampleRun keys them), the median over windows of MedianOpTimes on each window
// alone: the report's own op weighing, one window at a time.
std::map<std::string, int64_t> ReferenceOpMedians(const Built& b) {
  const OpGraph& graph = b.run.graph;
  const auto n = static_cast<int32_t>(graph.ops.size());
  std::vector<std::vector<int64_t>> per_window;
  const DeviceReport& dev = b.report.devices.front();
  for (const TimelineMetrics& w : dev.iterations) {
    per_window.push_back(MedianOpTimes(b.run.trace, b.run.attribution, n, std::span(&w.window, 1)));
  }
  if (dev.iterations.empty()) per_window.push_back(MedianOpTimes(b.run.trace, b.run.attribution, n, {}));
  std::map<std::string, int64_t> out;
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    std::string name = graph.ops[i].name;
    if (out.contains(name)) name += " (op " + std::to_string(i) + ")";
    std::vector<int64_t> values;
    for (const auto& w : per_window) values.push_back(w[i]);
    out[name] = SortedMedian(values);
  }
  return out;
}

TEST(RunDiffTest, PropertiesOnRandomRuns) {
  std::mt19937 rng(20261124);
  int significant_seen = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const Built a = Build(RandomPlan(rng));
    const Built b = Build(RandomPlan(rng));
    if (a.report.devices.empty() || b.report.devices.empty()) continue;  // every kernel drew 0 ns
    const RunDiff self = Diff(a, a);
    for (const FigureDiff* f : AllFigures(self)) {
      EXPECT_EQ(f->change_ns, 0) << "trial " << trial << " " << f->name;
      EXPECT_FALSE(f->significant) << "trial " << trial << " " << f->name;
    }
    const RunDiff ab = Diff(a, b);
    const RunDiff ba = Diff(b, a);
    const auto forward = AllFigures(ab);
    const auto backward = AllFigures(ba);
    ASSERT_EQ(forward.size(), backward.size());
    for (size_t i = 0; i < forward.size(); ++i) {
      ASSERT_EQ(forward[i]->name, backward[i]->name);
      EXPECT_EQ(forward[i]->change_ns, -backward[i]->change_ns) << "trial " << trial << " " << forward[i]->name;
      EXPECT_EQ(forward[i]->significant, backward[i]->significant) << "trial " << trial << " " << forward[i]->name;
      EXPECT_EQ(forward[i]->noise_ns, backward[i]->noise_ns);
      significant_seen += forward[i]->significant;
    }
    for (const FigureDiff& k : ab.kernels) {
      if (k.presence != Presence::kOnlyNew) {
        EXPECT_EQ(k.base.median_ns, SortedMedian(BruteForceSeries(a, k.name))) << k.name;
      }
      if (k.presence != Presence::kOnlyBase) {
        EXPECT_EQ(k.now.median_ns, SortedMedian(BruteForceSeries(b, k.name))) << k.name;
      }
    }
    const std::map<std::string, int64_t> base_ops = ReferenceOpMedians(a);
    const std::map<std::string, int64_t> new_ops = ReferenceOpMedians(b);
    for (const FigureDiff& op : ab.ops) {
      EXPECT_EQ(op.base.median_ns, base_ops.contains(op.name) ? base_ops.at(op.name) : 0) << op.name;
      EXPECT_EQ(op.now.median_ns, new_ops.contains(op.name) ? new_ops.at(op.name) : 0) << op.name;
    }
  }
  EXPECT_GT(significant_seen, 50) << "random runs should differ now and then";
}

}  // namespace
}  // namespace nimble::analysis
