// A run diff that does not report noise as change: per total (iteration, GPU active and idle time),
// per idle-gap cause, per kernel name and per op, the base and new medians over iterations, the change,
// and whether it is significant by the rule below. Pure functions; inputs are only read.
//
// The rule. Each run's figure is the median of its samples (core/median.h); its spread is the median
// absolute deviation (MAD) from that median. A change (new median - base median) is significant when
//   1. it leaves the noise band: |change| > noise_mads x the larger MAD of the two runs, and
//   2. it is large enough to matter: |change| >= min_change_ns and
//      |change| >= min_change_ratio x the larger of the two medians.
// With one sample in either run (a run without iteration windows) no spread is known: rule 1 cannot be
// checked, rule 2 alone decides, and the figure says spread_known = false. The rule is symmetric:
// swapping base and new negates every change and keeps every verdict.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "nimble/analysis/idle_gaps.h"
#include "nimble/analysis/run_samples.h"
#include "nimble/core/status.h"

namespace nimble::analysis {

struct DiffOptions {
  int64_t noise_mads = 3;         // 3 MADs: about two standard deviations of normally distributed noise
  int64_t min_change_ns = 100;    // below the jitter of GPU timestamps between two recordings
  double min_change_ratio = 0.01;
};

// One run's side of a figure.
struct SeriesStats {
  int32_t samples = 0;  // a name absent from the run counts as 0 in each of the run's samples
  int64_t median_ns = 0;
  int64_t mad_ns = 0;   // median absolute deviation from median_ns
};

SeriesStats StatsOf(std::span<const int64_t> samples);

enum class Presence : int32_t { kBoth = 0, kOnlyBase = 1, kOnlyNew = 2 };

struct FigureDiff {
  std::string name;                    // kernel or op name; the figure's key for totals ("iteration")
  SeriesStats base;
  SeriesStats now;                     // the new run's
  Presence presence = Presence::kBoth;  // kernels and ops: which runs have the name
  int64_t change_ns = 0;               // now.median_ns - base.median_ns
  std::optional<double> change_ratio;  // change_ns / base.median_ns; none when the base median is 0
  int64_t noise_ns = 0;                // noise_mads x max(MAD); 0 when no spread is known
  bool spread_known = false;           // both runs have two samples or more
  bool significant = false;
};

// Why a figure is or is not a change, in the rule's order: kSame (no change at all), kNoise (inside the
// noise band), kTooSmall (out of the band, or no spread known, but under the minimum size), kSignificant.
enum class DiffVerdict : int32_t { kSame = 0, kNoise = 1, kTooSmall = 2, kSignificant = 3 };
DiffVerdict VerdictOf(const FigureDiff& figure);
// "same", "noise", "too small", "significant".
std::string_view DiffVerdictName(DiffVerdict verdict);

// The rule above, on one figure's samples (presence is left kBoth).
FigureDiff DiffFigure(std::string name, std::span<const int64_t> base, std::span<const int64_t> now,
                      const DiffOptions& options);

struct RunDiff {
  int32_t base_samples = 0;
  int32_t new_samples = 0;
  FigureDiff iteration;  // iteration time (window length; the activity span without windows)
  FigureDiff active;     // GPU active time
  FigureDiff idle;       // GPU idle time
  std::array<FigureDiff, kNumGapCauses> idle_by_cause;  // indexed by GapCause
  std::vector<FigureDiff> kernels;  // by name, every name of either run
  std::vector<FigureDiff> ops;      // by op name, when both runs have an op graph
  bool ops_compared = false;
};

RunDiff DiffSamples(const RunSamples& base, const RunSamples& now, const DiffOptions& options = {});

// SampleRun on both sides, then DiffSamples. Errors say which side ("base run: ...").
StatusOr<RunDiff> DiffRuns(const RunDiffInput& base, const RunDiffInput& now, const DiffOptions& options = {});

// The `n` significant figures with the largest |change_ns| (ties: by name), largest first.
std::vector<const FigureDiff*> TopChanges(const std::vector<FigureDiff>& figures, size_t n);

}  // namespace nimble::analysis
