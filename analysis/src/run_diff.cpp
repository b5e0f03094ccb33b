#include "nimble/analysis/run_diff.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <utility>

#include "nimble/core/median.h"

namespace nimble::analysis {
namespace {

// Every key of either map. A name missing from one run took no time in each of that run's samples:
// its side is `zeros` zeros, so that its spread is still known.
using SeriesByName = std::map<std::string, std::vector<int64_t>>;

std::vector<FigureDiff> DiffByName(const SeriesByName& base, const SeriesByName& now, size_t base_zeros,
                                   size_t new_zeros, const DiffOptions& options) {
  const std::vector<int64_t> base_absent(base_zeros, 0);
  const std::vector<int64_t> new_absent(new_zeros, 0);
  std::map<std::string, std::pair<const std::vector<int64_t>*, const std::vector<int64_t>*>> joined;
  for (const auto& [name, series] : base) joined[name].first = &series;
  for (const auto& [name, series] : now) joined[name].second = &series;
  std::vector<FigureDiff> out;
  out.reserve(joined.size());
  for (const auto& [name, sides] : joined) {
    const std::vector<int64_t>& b = sides.first != nullptr ? *sides.first : base_absent;
    const std::vector<int64_t>& n = sides.second != nullptr ? *sides.second : new_absent;
    FigureDiff diff = DiffFigure(name, b, n, options);
    diff.presence = sides.first == nullptr ? Presence::kOnlyNew : sides.second == nullptr ? Presence::kOnlyBase
                                                                                         : Presence::kBoth;
    out.push_back(std::move(diff));
  }
  return out;
}

// How many values the op series of a run hold: one per sample with attribution, else one.
size_t OpSamples(const RunSamples& run) {
  return run.ops.empty() ? static_cast<size_t>(run.samples) : run.ops.begin()->second.size();
}

}  // namespace

SeriesStats StatsOf(std::span<const int64_t> samples) {
  SeriesStats out;
  out.samples = static_cast<int32_t>(samples.size());
  if (samples.empty()) return out;
  out.median_ns = Median({samples.begin(), samples.end()});
  std::vector<int64_t> deviations;
  deviations.reserve(samples.size());
  for (int64_t v : samples) deviations.push_back(std::abs(v - out.median_ns));
  out.mad_ns = Median(std::move(deviations));
  return out;
}

FigureDiff DiffFigure(std::string name, std::span<const int64_t> base, std::span<const int64_t> now,
                      const DiffOptions& options) {
  FigureDiff out;
  out.name = std::move(name);
  out.base = StatsOf(base);
  out.now = StatsOf(now);
  out.change_ns = out.now.median_ns - out.base.median_ns;
  if (out.base.median_ns != 0) {
    out.change_ratio = static_cast<double>(out.change_ns) / static_cast<double>(out.base.median_ns);
  }
  out.spread_known = out.base.samples >= 2 && out.now.samples >= 2;
  if (out.spread_known) out.noise_ns = options.noise_mads * std::max(out.base.mad_ns, out.now.mad_ns);
  const int64_t magnitude = std::abs(out.change_ns);
  const int64_t larger = std::max(std::abs(out.base.median_ns), std::abs(out.now.median_ns));
  out.significant = magnitude > out.noise_ns && magnitude >= options.min_change_ns &&
                    static_cast<double>(magnitude) >= options.min_change_ratio * static_cast<double>(larger);
  return out;
}

DiffVerdict VerdictOf(const FigureDiff& f) {
  if (f.significant) return DiffVerdict::kSignificant;
  if (f.change_ns == 0) return DiffVerdict::kSame;
  return f.spread_known && std::abs(f.change_ns) <= f.noise_ns ? DiffVerdict::kNoise : DiffVerdict::kTooSmall;
}

std::string_view DiffVerdictName(DiffVerdict verdict) {
  switch (verdict) {
    case DiffVerdict::kSame: return "same";
    case DiffVerdict::kNoise: return "noise";
    case DiffVerdict::kTooSmall: return "too small";
    case DiffVerdict::kSignificant: return "significant";
  }
  return "same";
}

RunDiff DiffSamples(const RunSamples& base, const RunSamples& now, const DiffOptions& options) {
  RunDiff out;
  out.base_samples = base.samples;
  out.new_samples = now.samples;
  out.iteration = DiffFigure("iteration", base.iteration_ns, now.iteration_ns, options);
  out.active = DiffFigure("gpu_active", base.active_ns, now.active_ns, options);
  out.idle = DiffFigure("gpu_idle", base.idle_ns, now.idle_ns, options);
  for (size_t c = 0; c < kNumGapCauses; ++c) {
    out.idle_by_cause[c] = DiffFigure(std::string(GapCauseName(static_cast<GapCause>(c))), base.idle_by_cause_ns[c],
                                      now.idle_by_cause_ns[c], options);
  }
  out.kernels = DiffByName(base.kernels, now.kernels, static_cast<size_t>(base.samples),
                           static_cast<size_t>(now.samples), options);
  out.ops_compared = base.has_graph && now.has_graph;
  if (out.ops_compared) out.ops = DiffByName(base.ops, now.ops, OpSamples(base), OpSamples(now), options);
  return out;
}

StatusOr<RunDiff> DiffRuns(const RunDiffInput& base, const RunDiffInput& now, const DiffOptions& options) {
  auto base_samples = SampleRun(base);
  if (!base_samples.ok()) return base_samples.status().WithContext("base run");
  auto new_samples = SampleRun(now);
  if (!new_samples.ok()) return new_samples.status().WithContext("new run");
  return DiffSamples(*base_samples, *new_samples, options);
}

std::vector<const FigureDiff*> TopChanges(const std::vector<FigureDiff>& figures, size_t n) {
  std::vector<const FigureDiff*> out;
  for (const FigureDiff& f : figures) {
    if (f.significant) out.push_back(&f);
  }
  std::sort(out.begin(), out.end(), [](const FigureDiff* a, const FigureDiff* b) {
    const int64_t ma = std::abs(a->change_ns);
    const int64_t mb = std::abs(b->change_ns);
    return ma != mb ? ma > mb : a->name < b->name;
  });
  if (out.size() > n) out.resize(n);
  return out;
}

}  // namespace nimble::analysis
