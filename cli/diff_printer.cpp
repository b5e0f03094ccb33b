#include "diff_printer.h"

#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <string>
#include <vector>

#include "nimble/analysis/idle_gaps.h"
#include "nimble/workflow/format.h"

namespace nimble::cli {
namespace {

using analysis::FigureDiff;
using workflow::FormatDuration;

std::string Signed(int64_t ns) {
  if (ns == 0) return "0 ns";
  return (ns > 0 ? "+" : "-") + FormatDuration(std::llabs(ns));
}

std::string Percent(const FigureDiff& f) {
  if (!f.change_ratio) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", *f.change_ratio * 100.0);
  return buf;
}

std::string Noise(const FigureDiff& f) { return f.spread_known ? "+/- " + FormatDuration(f.noise_ns) : "n/a"; }

std::string Verdict(const FigureDiff& f) { return std::string(analysis::DiffVerdictName(analysis::VerdictOf(f))); }

std::string Side(const workflow::DiffSide& side) {
  std::string s = "run " + std::to_string(side.run.id.value()) + " (" + RunModeName(side.run.mode) + ") of " +
                  side.path + ", ";
  if (side.iteration_range.empty()) return s + "no iteration windows (the whole run is one sample)";
  return s + std::to_string(side.samples) + " iterations ('" + side.iteration_range + "')";
}

void Header(std::ostream& out, const std::string& title, const std::string& first) {
  out << "\n" << title << "\n  " << std::left << std::setw(24) << first << std::right << std::setw(12) << "base"
      << std::setw(12) << "new" << std::setw(12) << "change" << std::setw(10) << "%" << std::setw(15) << "noise"
      << "  verdict\n";
}

void Row(std::ostream& out, const std::string& label, const FigureDiff& f) {
  out << "  " << std::left << std::setw(24) << label << std::right << std::setw(12) << FormatDuration(f.base.median_ns)
      << std::setw(12) << FormatDuration(f.now.median_ns) << std::setw(12) << Signed(f.change_ns) << std::setw(10)
      << Percent(f) << std::setw(15) << Noise(f) << "  " << Verdict(f) << "\n";
}

const char* CauseLabel(analysis::GapCause cause) {
  switch (cause) {
    case analysis::GapCause::kHostLaunchLate: return "host launched late";
    case analysis::GapCause::kSynchronization: return "synchronization";
    case analysis::GapCause::kMemoryCopy: return "memory copy";
    case analysis::GapCause::kOther: return "other";
  }
  return "?";
}

// Names last: kernel names run to hundreds of characters.
void PrintTop(std::ostream& out, const char* what, const std::vector<FigureDiff>& figures, size_t top) {
  const std::vector<const FigureDiff*> shown = analysis::TopChanges(figures, top);
  size_t significant = 0;
  for (const FigureDiff& f : figures) significant += f.significant ? 1 : 0;
  out << "\n" << what << ": " << significant << " of " << figures.size() << " changed significantly";
  if (significant == 0 || shown.empty()) {
    out << (significant == 0 ? " (every change within the noise or too small)\n" : "\n");
    return;
  }
  out << (shown.size() < significant ? " (the " + std::to_string(shown.size()) + " largest)" : "") << "\n  "
      << std::right << std::setw(12) << "base" << std::setw(12) << "new" << std::setw(12) << "change" << std::setw(10)
      << "%" << std::setw(15) << "noise" << "  name\n";
  for (const FigureDiff* f : shown) {
    const char* presence = f->presence == analysis::Presence::kOnlyNew    ? " (new)"
                           : f->presence == analysis::Presence::kOnlyBase ? " (gone)"
                                                                          : "";
    out << "  " << std::setw(12) << FormatDuration(f->base.median_ns) << std::setw(12)
        << FormatDuration(f->now.median_ns) << std::setw(12) << Signed(f->change_ns) << std::setw(10) << Percent(*f)
        << std::setw(15) << Noise(*f) << "  " << f->name << presence << "\n";
  }
}

}  // namespace

void PrintDiff(std::ostream& out, const workflow::DiffResult& result, size_t top) {
  const analysis::RunDiff& d = result.diff;
  char rule[200];
  std::snprintf(rule, sizeof rule,
                "significant: the medians differ by more than %lld MADs of the noisier run, and by at least %s "
                "and %g%% of the larger median",
                static_cast<long long>(result.rule.noise_mads), FormatDuration(result.rule.min_change_ns).c_str(),
                result.rule.min_change_ratio * 100.0);
  out << "base: " << Side(result.base) << "\nnew:  " << Side(result.now) << "\n" << rule << "\n";
  Header(out, "Total (median per iteration)", "");
  Row(out, "iteration time", d.iteration);
  Row(out, "GPU active time", d.active);
  Row(out, "GPU idle time", d.idle);
  Header(out, "Idle time by cause (median per iteration)", "cause");
  for (size_t c = 0; c < analysis::kNumGapCauses; ++c) {
    Row(out, CauseLabel(static_cast<analysis::GapCause>(c)), d.idle_by_cause[c]);
  }
  PrintTop(out, "Kernels", d.kernels, top);
  if (d.ops_compared) PrintTop(out, "Ops", d.ops, top);
}

}  // namespace nimble::cli
