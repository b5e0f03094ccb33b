// Calibrates the GPU-sharing model (gpu_sharing.h) on a device: given recorded cases - a model's
// kernels, its multi-stream schedule, the replay costs measured with it and the multi-stream replay's
// measured latency - finds the model whose simulated latencies miss the measured ones least: the fewest
// cases beyond a tolerance (the prediction's target, +-10 %), then the least mean absolute relative
// error, then the smallest largest miss; and for each case the error when the model is fitted on the
// other cases alone (leave-one-out: what an unseen model can expect). Pure; one thread.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "nimble/analysis/dag.h"
#include "nimble/analysis/gpu_sharing.h"
#include "nimble/analysis/prediction.h"
#include "nimble/core/schedule.h"
#include "nimble/core/status.h"

namespace nimble::analysis {

struct SharingCase {
  std::string name;
  Dag dag;
  Workload workload;
  StreamAssignment multi;
  PredictionOptions costs;  // replay costs measured with the case; its `sharing` is ignored
  int64_t measured_ns = 0;  // the multi-stream replay's measured latency
};

struct SharingGrid {
  std::vector<double> floors;
  std::vector<double> exponents;
  std::vector<Dispatch> dispatches = {Dispatch::kShared};
  std::vector<SharingModel> crowded = {};  // models with crowding, tried besides floors x exponents x dispatches
  double tolerance = 0.10;  // relative error beyond which a case counts as missed
};

// floor 0 to 0.6 in steps of 0.025, exponent 1 down to 0.2 in steps of 0.05 (the identity included), each
// with shared and in-order dispatch; and with crowding, in-order: floor 0 to 0.3 in steps of 0.05,
// exponent 1 to 0.7 in steps of 0.1, crowding 0.125 to 0.5 in steps of 0.125, 0.75 and 1, knee 0.2 to
// 0.8 in steps of 0.1; tolerance 10 %.
SharingGrid DefaultSharingGrid();

struct SharingCaseResult {
  std::string name;
  int64_t measured_ns = 0;
  int64_t uncalibrated_ns = 0;  // the identity model
  int64_t fitted_ns = 0;        // the model fitted on every case
  int64_t held_out_ns = 0;      // the model fitted on the other cases (the fitted one with a single case)
  SharingModel held_out_model;
};

struct SharingFit {
  SharingModel model;  // source left empty for the caller to name
  double tolerance = 0;  // the grid's: cases beyond it were counted first
  std::vector<SharingCaseResult> cases;
};

// Relative error of a prediction: (predicted - measured) / measured.
double RelativeError(int64_t predicted_ns, int64_t measured_ns);

// Each case's multi-stream latency as `model` predicts it (no fitting): how a given model holds on
// recordings. A simulation's error names its case.
StatusOr<std::vector<int64_t>> PredictCases(std::span<const SharingCase> cases, const SharingModel& model);

// InvalidArgument without cases, with a case measured at <= 0 ns or a grid without the identity's
// neighbours (an empty axis); a simulation's error names its case.
StatusOr<SharingFit> FitSharing(std::span<const SharingCase> cases, const SharingGrid& grid = DefaultSharingGrid());

}  // namespace nimble::analysis
