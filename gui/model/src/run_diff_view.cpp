#include "nimble/gui/run_diff_view.h"

#include <cstdio>
#include <cstdlib>

#include "nimble/gui/palette.h"
#include "nimble/gui/ruler_ticks.h"

namespace nimble::gui {
namespace {

using analysis::FigureDiff;

std::string Dur(int64_t ns) { return FormatDuration(static_cast<double>(ns)); }

std::string Signed(int64_t ns) {
  if (ns == 0) return Dur(0);
  return (ns > 0 ? "+" : "\u2212") + Dur(std::llabs(ns));
}

std::string Percent(const FigureDiff& f) {
  if (!f.change_ratio) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", *f.change_ratio * 100.0);
  return buf;
}

DiffRow Row(const std::string& label, const FigureDiff& f) {
  DiffRow row;
  row.label = label;
  row.base = Dur(f.base.median_ns);
  row.now = Dur(f.now.median_ns);
  row.change = Signed(f.change_ns);
  row.percent = Percent(f);
  row.noise = f.spread_known ? "\u00b1 " + Dur(f.noise_ns) : "n/a";
  row.verdict = std::string(analysis::DiffVerdictName(analysis::VerdictOf(f)));
  if (f.presence == analysis::Presence::kOnlyNew) row.verdict += ", new";
  if (f.presence == analysis::Presence::kOnlyBase) row.verdict += ", gone";
  row.significant = f.significant;
  return row;
}

DiffRow Heading(std::string title) {
  DiffRow row;
  row.label = std::move(title);
  row.heading = true;
  return row;
}

// The largest significant changes, or one line saying there are none.
void AddTop(const char* what, const std::vector<FigureDiff>& figures, size_t top, std::vector<DiffRow>& rows) {
  const std::vector<const FigureDiff*> shown = analysis::TopChanges(figures, top);
  size_t significant = 0;
  for (const FigureDiff& f : figures) significant += f.significant ? 1 : 0;
  rows.push_back(Heading(std::string(what) + ": " + std::to_string(significant) + " of " +
                         std::to_string(figures.size()) + " changed significantly"));
  for (const FigureDiff* f : shown) rows.push_back(Row(f->name, *f));
}

std::string Side(const LoadedRun& run, const analysis::RunSamples& samples) {
  return run.Label() + (samples.whole_run ? " (no iterations: one sample)"
                                          : " (" + std::to_string(samples.samples) + " iterations)");
}

}  // namespace

StatusOr<RunDiffView> DescribeDiff(const LoadedRun& base, const LoadedRun& now, size_t top) {
  for (const LoadedRun* run : {&base, &now}) {
    if (run->diff_samples) continue;
    return FailedPrecondition(run->Label() + ": no diff: " +
                              (run->diff_problem.empty() ? "the run was loaded without iteration samples"
                                                         : run->diff_problem));
  }
  RunDiffView view;
  const analysis::DiffOptions rule;
  view.diff = analysis::DiffSamples(*base.diff_samples, *now.diff_samples, rule);
  const analysis::RunDiff& d = view.diff;
  view.title = Side(base, *base.diff_samples) + "  \u2192  " + Side(now, *now.diff_samples);
  char text[200];
  std::snprintf(text, sizeof text,
                "Significant: the medians differ by more than %lld MADs of the noisier run, and by at least %s and "
                "%g%% of the larger median.",
                static_cast<long long>(rule.noise_mads), Dur(rule.min_change_ns).c_str(), rule.min_change_ratio * 100);
  view.notes.push_back(text);
  if (!d.iteration.spread_known) {
    view.notes.push_back("A run without iteration windows is one sample: no spread is known, size alone decides.");
  }
  if (base.diff_samples->has_graph != now.diff_samples->has_graph) {
    view.notes.push_back("Only one run has an op graph: ops are not compared.");
  }
  view.rows.push_back(Heading("Total (median per iteration)"));
  view.rows.push_back(Row("iteration time", d.iteration));
  view.rows.push_back(Row("GPU active time", d.active));
  view.rows.push_back(Row("GPU idle time", d.idle));
  view.rows.push_back(Heading("Idle time by cause"));
  for (size_t c = 0; c < analysis::kNumGapCauses; ++c) {
    view.rows.push_back(Row(std::string(GapCauseLabel(static_cast<analysis::GapCause>(c))), d.idle_by_cause[c]));
  }
  AddTop("Kernels", d.kernels, top, view.rows);
  if (d.ops_compared) AddTop("Ops", d.ops, top, view.rows);
  return view;
}

}  // namespace nimble::gui
