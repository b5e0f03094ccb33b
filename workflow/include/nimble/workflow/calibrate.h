// The calibration workflow (`nimble-prof calibrate`): reads the runs nimble-accelerate stored with --db
// (the model's own recording, each multi-stream schedule with its measured latency and replay costs),
// fits the GPU-sharing model of analysis/gpu_sharing.h to them, and writes it as a calibration file that
// nimble-accelerate --calibration and nimble.accelerate(calibration=) read. Databases are opened for
// reading only, one at a time; the file is written whole or not at all. One thread.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nimble/analysis/gpu_sharing.h"
#include "nimble/analysis/sharing_fit.h"
#include "nimble/core/status.h"

namespace nimble::workflow {

struct CalibrateOptions {
  std::vector<std::string> databases;  // run databases written by nimble-accelerate --db
  std::string output;                  // calibration file to write; empty: none
  std::string compare;                 // a calibration file whose model also predicts every case; empty: none
  // Each case's kernels anchored on its single-stream replay (analysis::AnchorToSingleStream), as
  // nimble-accelerate predicts the multi-stream replay; false: as recorded (runs stored before 2026-11-28
  // were predicted so, and stored_predicted_ns is rebuilt that way).
  bool anchor = true;
  // Fit only the cases of this precision (the others skipped, saying so); nullopt: every case. A device's
  // built-in models are fitted by precision (analysis::Precision).
  std::optional<analysis::Precision> precision = std::nullopt;
};

// One recorded multi-stream replay as the fit saw it.
struct CalibrationCase {
  std::string database;
  std::string model;   // the run's model file
  std::string inputs;  // its inputs ("1x3x224x224")
  int32_t streams = 0;
  int32_t syncs = 0;
  int64_t single_measured_ns = 0;  // the single-stream replay beside it (0 when not stored)
  int64_t stored_predicted_ns = 0;  // what nimble-accelerate predicted when it ran
  double duration_scale = 1;        // the kernels' anchoring factor (1: not anchored)
  std::string not_anchored;         // why not, where CalibrateOptions::anchor asked for it; empty otherwise
  // What the model computes in: as nimble-accelerate stored it (metric sharing_precision), else from the
  // run's inputs (ModelPrecision without weights: a float16 or bfloat16 input, half; a float32 one, float32).
  analysis::Precision precision = analysis::Precision::kUnknown;
};

// A model that predicted every case as it is, without fitting: the device's built-in one, or a file's.
struct EvaluatedModel {
  analysis::SharingModel model;       // the built-in one: the device's for the cases' precision (CalibrateResult::precision)
  std::vector<int64_t> predicted_ns;  // parallel to the cases
  // The built-in one only: each case's own, by its precision (parallel to the cases); empty for a file's.
  std::vector<analysis::SharingModel> case_models;
};

struct CalibrateResult {
  std::string device;
  bool anchor = true;  // CalibrateOptions::anchor
  std::vector<CalibrationCase> cases;   // parallel to fit.cases
  analysis::Precision precision = analysis::Precision::kUnknown;  // the cases', where they share one
  analysis::SharingFit fit;
  std::optional<EvaluatedModel> built_in;  // the model built in for `device` (gpu_sharing.h), if any
  std::optional<EvaluatedModel> compared;  // CalibrateOptions::compare's model
  std::vector<std::string> skipped;     // "<file>: why" for databases without a usable run
};

// InvalidArgument when no database holds a usable multi-stream run, or when they come from different
// devices (each device is calibrated on its own); a damaged database fails with its name.
StatusOr<CalibrateResult> Calibrate(const CalibrateOptions& options);

// The calibration file's contents: format, device, model, the cases' precision, each case's measured and
// predicted latency, and the built-in models: "built_in_model" for the cases' precision (the all-precision
// one when they differ) and "built_in_models", the one each precision among the cases was predicted with.
nlohmann::json CalibrationToJson(const CalibrateResult& result);

// Reads a calibration file; errors name the file and what is wrong. The model's source names the file.
StatusOr<analysis::SharingModel> LoadCalibration(const std::string& path);

}  // namespace nimble::workflow
