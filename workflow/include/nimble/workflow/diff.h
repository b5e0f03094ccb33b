// The diff workflow: one run of a base database against one run of a new database (or two runs of one
// database), each reported as `report` reports it (detected iteration windows), then compared by
// analysis::DiffSamples, whose rule decides what is significant. Databases are opened for reading
// only, a file named twice once. Also the regression gate of `diff --fail-above`. One thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "nimble/analysis/run_diff.h"
#include "nimble/core/run.h"
#include "nimble/core/status.h"
#include "nimble/store/run_database.h"

namespace nimble::workflow {

struct DiffOptions {
  // -1: the last run of the file; when both sides are one file and neither run is named, the base is
  // the last run but one.
  int64_t base_run = -1;
  int64_t new_run = -1;
  std::string iteration_range;  // NVTX range text of one iteration, both runs; empty: detected per run
  analysis::DiffOptions rule;
};

// One side as compared.
struct DiffSide {
  std::string path;
  RunInfo run;
  std::string iteration_range;  // "" when the run has no iteration windows
  int32_t samples = 0;          // iteration windows, or 1 (the whole run)
  bool has_graph = false;
};

struct DiffResult {
  DiffSide base;
  DiffSide now;  // the new run's
  analysis::DiffOptions rule;
  analysis::RunDiff diff;
  std::vector<std::string> warnings;  // what makes the comparison weaker (no spread, ranges that differ)
};

// `base` and `now` may be the same open database.
StatusOr<DiffResult> Diff(const store::RunDatabase& base, const store::RunDatabase& now, const DiffOptions& options);

// Opens both files for reading (once when both paths name one file) and runs Diff.
StatusOr<DiffResult> DiffFiles(const std::string& base_path, const std::string& new_path, const DiffOptions& options);

// `--fail-above PCT`: fails when the median iteration time grew by more than PCT percent and that
// change is significant.
struct RegressionGate {
  double threshold_percent = 0;
  std::optional<double> change_percent;  // none when the base run's iteration time is 0
  bool significant = false;
  bool spread_known = false;
  bool within_noise = false;  // the change did not leave the runs' noise band
  bool failed = false;

  // "regression gate: FAILED (+7.3% > 5%)", "regression gate: passed (+1.2% <= 5%)", and why a large
  // change passed ("within the runs' noise").
  std::string Describe() const;
};
RegressionGate CheckRegression(const analysis::RunDiff& diff, double threshold_percent);

}  // namespace nimble::workflow
