// The accelerate session's output check: each captured mode against the frozen graph it was captured
// from (the gate) and against the model as the file holds it, without the front end's rewrites
// (reported, and warned of above a per-dtype tolerance).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "accelerate_session.h"
#include "nimble/accelerate/model_timing.h"

namespace nimble::workflow {

using namespace ::nimble::accelerate;  // NOLINT: the session drives the accelerate module step by step
namespace {

// The output check's tolerances, by the dtype of the outputs compared: the norm-wise relative error
// (largest difference over largest reference magnitude) that the replays may show.
// Against the frozen graph the captures came from (the gate): the kernels are the same ones, and only
// their order and cuBLAS's split-K choices differ per stream; in half precision each rounding is about
// 1e3 times coarser (unit roundoff 4.9e-4 for float16, 3.9e-3 for bfloat16) than in float32.
double FrozenTolerance(const std::vector<HostTensor>& reference) {
  double tolerance = 1e-4;
  for (const HostTensor& output : reference) {
    if (output.dtype == DType::kFloat16) tolerance = std::max(tolerance, 1e-2);
    if (output.dtype == DType::kBFloat16) tolerance = std::max(tolerance, 5e-2);
  }
  return tolerance;
}

// Against the model as the file holds it (reported, a warning above it): the front end's rewrites round
// differently (batch norm folded into the weights, other convolution kernels in channels_last, fused
// GELU and epilogues), and a deep network carries those differences to its output. Measured on the H100
// with outputs that depend on the input (bench/results/zoo.md, "The output check against the model as
// the file holds it"): float32 2.9e-6 to 6.8e-5 on four CNNs; float16 8.5e-3 (EfficientNet-B0) to 9.8e-2
// (Inception-v3, whose float16 model is itself about that far from its float32 computation, which is why
// half-precision differences above the tolerance are then judged against float32: kFloat32DistanceRatio).
double FileTolerance(const std::vector<HostTensor>& reference, bool tf32) {
  double tolerance = tf32 ? 5e-2 : 1e-4;
  for (const HostTensor& output : reference) {
    if (output.dtype == DType::kFloat16) tolerance = std::max(tolerance, 5e-2);
    if (output.dtype == DType::kBFloat16) tolerance = std::max(tolerance, 1e-1);
  }
  return tolerance;
}

// A half-precision model's replays are taken as rounding, where they differ from the file's model by
// more than the dtype's tolerance, when they are at most this many times as far from the model computed
// in float32 as the file's model at its dtype is (a finite distance). The rewrites round differently
// (weights folded, other kernels), and on Inception-v3 in float16 that put the replays 1.6x as far from
// float32 as the file's model (bench/results/zoo.md); a rewrite that computes something else (a wrong
// fold, a lost bias) moves them far beyond the dtype's own distance.
constexpr double kFloat32DistanceRatio = 2.0;

bool HasHalfPrecision(const std::vector<HostTensor>& tensors) {
  return std::any_of(tensors.begin(), tensors.end(), [](const HostTensor& t) { return IsHalfPrecision(t.dtype); });
}

double FiniteOrInf(double error) { return std::isnan(error) ? std::numeric_limits<double>::infinity() : error; }

std::string FormatG(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.3g", value);
  return text;
}

}  // namespace

void Session::MakeCheckInputs() {
  if (!check_inputs_.empty()) return;
  for (uint64_t trial = 0; trial < 3; ++trial) {
    std::vector<HostTensor> inputs;
    for (size_t i = 0; i < specs_.size(); ++i) inputs.push_back(HostTensor::Random(specs_[i], 1000 + trial * 16 + i));
    check_inputs_.push_back(std::move(inputs));
  }
}

void Session::RunUnmodifiedModel() {
  progress_.Step("running the model as the file holds it, without the front end's rewrites, for the output check");
  MakeCheckInputs();
  check_file_reference_.clear();
  result_.output_reference.clear();
  FrontEndOptions plain;
  plain.device = args_.device;
  plain.optimize = false;  // no folding, no GELU or epilogue fusion
  plain.cuda_fusions = false;
  plain.conv_epilogues = false;
  plain.memory_format = MemoryFormat::kContiguous;
  plain.tf32 = args_.tf32;  // the precision asked for, as the captures run it
  auto skip = [&](const Status& why) {
    progress_.Warning("running the model without the front end's rewrites failed (" + why.message() +
                      "); the outputs are checked against the frozen graph alone");
    check_file_reference_.clear();
  };
  {
    StatusOr<ModelGraph> unmodified = LoadModelGraph(args_.model, specs_, plain);
    if (!unmodified.ok()) return skip(unmodified.status());
    for (const std::vector<HostTensor>& inputs : check_inputs_) {
      StatusOr<std::vector<HostTensor>> outputs = RunOnce(unmodified->model, inputs);
      if (!outputs.ok()) return skip(outputs.status());
      check_file_reference_.push_back(std::move(*outputs));
    }
  }  // released before the float32 copy is loaded
  result_.output_reference = "the model as the file holds it (no folding, layout change or fusion), run by libtorch";
  if (HasHalfPrecision(check_file_reference_.front())) RunWidenedModel(plain);
}

void Session::RunWidenedModel(FrontEndOptions options) {
  progress_.Step("running the model as the file holds it in float32 as well, to tell its dtype's rounding from the "
                 "rewrites'");
  options.widen_to_float32 = true;
  options.tf32 = false;  // IEEE float32, also where the captures run TF32
  std::vector<TensorSpec> specs = specs_;
  for (TensorSpec& spec : specs) {
    if (IsHalfPrecision(spec.dtype)) spec.dtype = DType::kFloat32;
  }
  auto skip = [&](const Status& why) {
    progress_.Warning("running the model in float32 failed (" + why.message() +
                      "); its half-precision outputs are judged by the dtype's tolerance alone");
    check_float32_reference_.clear();
    result_.unmodified_error_float32 = -1;
  };
  check_float32_reference_.clear();
  StatusOr<ModelGraph> widened = LoadModelGraph(args_.model, specs, options);
  if (!widened.ok()) return skip(widened.status());
  double error = 0;
  for (size_t trial = 0; trial < check_inputs_.size(); ++trial) {
    StatusOr<std::vector<HostTensor>> outputs = RunOnce(widened->model, WidenedToFloat32(check_inputs_[trial]));
    if (!outputs.ok()) return skip(outputs.status());
    StatusOr<double> file_error = MaxRelativeError(check_file_reference_[trial], *outputs);
    if (!file_error.ok()) return skip(file_error.status());
    error = std::max(error, FiniteOrInf(*file_error));
    check_float32_reference_.push_back(std::move(*outputs));
  }
  result_.unmodified_error_float32 = error;
}

Status Session::CheckOutputs() {
  MakeCheckInputs();
  progress_.Step("checking outputs against the frozen graph run by libtorch" +
                 std::string(check_file_reference_.empty() ? "" : " and against " + result_.output_reference));
  check_frozen_reference_.clear();
  for (const std::vector<HostTensor>& inputs : check_inputs_) {
    NIMBLE_ASSIGN_OR_RETURN(std::vector<HostTensor> outputs, RunOnce(model_.model, inputs));
    check_frozen_reference_.push_back(std::move(outputs));
  }
  for (auto [graph, mode] : {std::pair{single_graph_.get(), &result_.single}, {multi_graph_.get(), &result_.multi}}) {
    if (graph != nullptr) NIMBLE_RETURN_IF_ERROR(CheckGraph(*graph, mode));
  }
  // The carveout alternate replays the multi-stream capture's nodes: its errors count as that mode's.
  if (multi_graph_ != nullptr && multi_graph_->has_carveout_alternate()) {
    CarveoutSwapped swapped(*multi_graph_, true);
    NIMBLE_RETURN_IF_ERROR(CheckGraph(*multi_graph_, &result_.multi));
  }
  if (!check_file_reference_.empty()) {
    const double error = std::max(result_.single.max_rel_error_unmodified, result_.multi.max_rel_error_unmodified);
    const double tolerance = FileTolerance(check_file_reference_.front(), args_.tf32);
    const double replays_float32 = std::max(result_.single.max_rel_error_float32, result_.multi.max_rel_error_float32);
    const double file_float32 = result_.unmodified_error_float32;
    const bool measured_float32 = file_float32 >= 0 && replays_float32 >= 0 && std::isfinite(file_float32);
    const std::string float32_distances =
        measured_float32 ? "; computed in float32, the model is " + FormatG(file_float32) + " from the file's model at "
                               "its dtype and " + FormatG(replays_float32) + " from the replays"
                         : "";
    if (error > tolerance && measured_float32 && replays_float32 <= kFloat32DistanceRatio * file_float32) {
      progress_.Step("the replays differ from the model as the file holds it by " + FormatG(error) + ", above the " +
                     FormatG(tolerance) + " stated for this dtype, but no more than the dtype's rounding explains" +
                     float32_distances);
    } else if (error > tolerance) {
      progress_.Warning("the replays differ from " + result_.output_reference + " by a relative error of " +
                        FormatG(error) + ", above the " + FormatG(tolerance) +
                        " expected of the front end's rewrites at this dtype (they agree with the frozen graph those "
                        "rewrites made)" + float32_distances +
                        "; --memory-format contiguous and --no-conv-epilogues leave two of them out");
    }
  }
  check_inputs_.clear();
  check_frozen_reference_.clear();
  check_file_reference_.clear();
  check_float32_reference_.clear();
  return OkStatus();
}

Status Session::CheckGraph(AotGraph& captured, ModeResult* mode) {
  for (size_t trial = 0; trial < check_inputs_.size(); ++trial) {
    const std::vector<HostTensor>& reference = check_frozen_reference_[trial];
    NIMBLE_RETURN_IF_ERROR(captured.SetInputs(check_inputs_[trial]));
    NIMBLE_RETURN_IF_ERROR(captured.Replay());
    NIMBLE_ASSIGN_OR_RETURN(std::vector<HostTensor> outputs, captured.Outputs());
    NIMBLE_ASSIGN_OR_RETURN(double error, MaxRelativeError(outputs, reference));
    mode->max_rel_error = std::max(mode->max_rel_error, error);
    const double tolerance = FrozenTolerance(reference);
    if (!(error <= tolerance)) {
      return FailedPrecondition(args_.model + ": " + RunModeName(mode->mode) +
                                " outputs differ from the frozen graph run by libtorch (max relative error " +
                                FormatG(error) + " > " + FormatG(tolerance) + "); no model.nimble written");
    }
    if (trial < check_file_reference_.size()) {
      StatusOr<double> file_error = MaxRelativeError(outputs, check_file_reference_[trial]);
      if (!file_error.ok()) {  // outputs of another count or shape: not comparable, and not the gate's concern
        progress_.Warning("the replays' outputs cannot be compared with " + result_.output_reference + ": " +
                          file_error.status().message() + "; the outputs are checked against the frozen graph alone");
        check_file_reference_.clear();
        result_.output_reference.clear();
        result_.single.max_rel_error_unmodified = result_.multi.max_rel_error_unmodified = -1;
        check_float32_reference_.clear();
        result_.unmodified_error_float32 = -1;
        result_.single.max_rel_error_float32 = result_.multi.max_rel_error_float32 = -1;
        continue;
      }
      // A NaN is kept as +inf: over any tolerance, and not mistaken for "not compared".
      mode->max_rel_error_unmodified = std::max(mode->max_rel_error_unmodified, FiniteOrInf(*file_error));
    }
    if (trial < check_float32_reference_.size()) {
      StatusOr<double> float32_error = MaxRelativeError(outputs, check_float32_reference_[trial]);
      if (float32_error.ok()) {  // the same outputs as the file's model, so comparable where that was
        mode->max_rel_error_float32 = std::max(mode->max_rel_error_float32, FiniteOrInf(*float32_error));
      }
    }
  }
  return OkStatus();
}

}  // namespace nimble::workflow
