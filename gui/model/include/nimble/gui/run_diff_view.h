// What the Diff tab shows in compare mode: one run against another, as `nimble-prof diff` prints it
// (totals, idle time by cause, the kernels and ops with the largest significant changes), computed by
// analysis::DiffSamples from the samples the loader took. Plain text, no Qt, so the wording and the
// numbers are tested. Pure functions of the loaded runs.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "nimble/analysis/run_diff.h"
#include "nimble/core/status.h"
#include "nimble/gui/loaded_run.h"

namespace nimble::gui {

struct DiffRow {
  std::string label;    // figure, cause, kernel or op name; the section title for a heading
  std::string base;     // medians per iteration
  std::string now;
  std::string change;   // "+139 µs"
  std::string percent;  // "+2.6%", "-" without a base
  std::string noise;    // "± 150 µs", "n/a" without spread
  std::string verdict;  // "significant", "noise", "too small", "same", "new", "gone"
  bool heading = false;
  bool significant = false;
};

struct RunDiffView {
  std::string title;               // "run A → run B"
  std::vector<std::string> notes;  // the rule, and what weakens the comparison (no spread, no graph)
  std::vector<DiffRow> rows;
  analysis::RunDiff diff;          // the numbers behind the rows
};

// FailedPrecondition naming the run when either was loaded without samples (not in compare mode, or
// its sampling failed: the reason is kept).
StatusOr<RunDiffView> DescribeDiff(const LoadedRun& base, const LoadedRun& now, size_t top = 20);

}  // namespace nimble::gui
