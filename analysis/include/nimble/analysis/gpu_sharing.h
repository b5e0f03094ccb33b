// How much of the GPU a kernel takes while it runs beside others: its occupancy share (occupancy.h, the
// block slots its grid fills) mapped through a model calibrated on the device, and how kernels whose
// shares exceed the GPU divide it. Block slots alone understate what a kernel takes: in recorded
// multi-stream replays on the H100 and H200 (bench/results/concurrency.md), kernels filling 4 % of the
// block slots ran 1.3-1.5x longer when three or four ran together, and the simulator predicted
// multi-stream replays 3-32 % too fast. Pure functions; the table is constant.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace nimble::analysis {

// How running kernels divide the GPU once their effective shares sum to more than all of it.
enum class Dispatch : int32_t {
  // Processor sharing: every running kernel slows alike, to 1 / (sum of shares); a kernel's share is the
  // block slots its grid fills.
  kShared = 0,
  // In the order they started, as the block scheduler hands out slots: each kernel takes its share of what
  // the kernels started before it left and waits while nothing is left; a kernel's share is its block
  // slots averaged over its waves (a grid of 1.3 waves fills 65 % of the slots over its run).
  kInOrder = 1,
};

std::string_view DispatchName(Dispatch dispatch);                 // "shared", "in-order"
std::optional<Dispatch> ParseDispatch(std::string_view name);     // the inverse; nullopt for other text

// effective share = floor + (1 - floor) * share^exponent, in [share, 1] for floor in [0, 1] and
// exponent in (0, 1]. The identity (floor 0, exponent 1, shared, no crowding) is the uncalibrated model.
// Crowding separates how much a small kernel slows beside others from how much of the GPU it claims: a
// kernel whose share s is below `knee` runs 1 + crowding * (1 - s / knee) times slower while any other
// kernel runs, and claims only its effective share. In NASNet-A large's multi-stream replays on the H200,
// kernels filling under 0.3 of the block slots ran 1.3-2x slower beside others than their slots say,
// from the first co-runner on, while those filling over 0.5 slowed as their slots say (bench/results/
// concurrency.md, "Crowding").
struct SharingModel {
  double floor = 0.0;
  double exponent = 1.0;
  std::string source;  // "uncalibrated", "calibrated on NVIDIA H200 (...)", or the calibration file
  Dispatch dispatch = Dispatch::kShared;
  double crowding = 0.0;  // >= 0; 0: none
  double knee = 0.0;      // in [0, 1]: shares from it up are not crowded

  bool identity() const {
    return floor == 0.0 && exponent == 1.0 && dispatch == Dispatch::kShared && !crowded();
  }
  bool crowded() const { return crowding > 0.0 && knee > 0.0; }
  friend bool operator==(const SharingModel& a, const SharingModel& b) {
    return a.floor == b.floor && a.exponent == b.exponent && a.dispatch == b.dispatch && a.crowding == b.crowding &&
           a.knee == b.knee;
  }
};

// "floor 0.25, exponent 0.65, in-order dispatch[, crowding 0.5 below share 0.4] (<source>)", or for the identity
// "as occupancy says (<source>)".
std::string SharingModelText(const SharingModel& model);

// In [0, 1]; `share` is clamped to [0, 1] first.
double EffectiveShare(double share, const SharingModel& model);

// How much slower a kernel of this share runs while another kernel runs: 1 + crowding * max(0, 1 -
// share / knee); 1 without crowding.
double CrowdedSlowdown(double share, const SharingModel& model);

// What a model computes in, for the built-in models: float32 kernels without TF32 run on the SMs' FMA
// units and slow far more beside others than half-precision (float16, bfloat16) ones on tensor cores.
// On the H200, kernels filling 0.7 or more of the block slots ran 1.57-2.48x longer beside others whose
// slots summed to under 1 in float32 models, 1.13-1.72x in half-precision ones (bench/results/
// concurrency.md, "Float32 and half precision").
enum class Precision : int32_t { kUnknown = 0, kFloat32 = 1, kHalf = 2 };

std::string_view PrecisionName(Precision precision);                // "unknown", "float32", "half"
std::optional<Precision> ParsePrecision(std::string_view name);     // the inverse; nullopt for other text

// The model calibrated for a device, by its name as CUDA reports it ("NVIDIA H100 80GB HBM3"), and a
// precision, from the committed calibration runs: the device's model for that precision where it has
// one, else its model fitted on every precision; nullopt for a device never calibrated.
std::optional<SharingModel> CalibratedSharing(std::string_view device_name, Precision precision = Precision::kUnknown);

// CalibratedSharing, or the identity model named "uncalibrated (no calibration for <device>)".
SharingModel SharingFor(std::string_view device_name, Precision precision = Precision::kUnknown);

}  // namespace nimble::analysis
