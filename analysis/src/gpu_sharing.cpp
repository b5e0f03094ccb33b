#include "nimble/analysis/gpu_sharing.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace nimble::analysis {
namespace {

struct DeviceSharing {
  std::string_view device;
  double floor;
  double exponent;
  std::string_view measured;  // where the fit's recordings and figures are
};

// Fitted by `nimble-prof calibrate` over the recordings of bench/concurrency_data.sh on each device (11
// multi-stream replays: CNNs at batch 1 and 8, the paper's cell networks, a mixture of experts in fp32 and
// bf16); the figures (mean error 16.1 -> 3.3 % on the H100, 16.3 -> 5.0 % on the H200; held out 3.8 and
// 7.9 %) and the commands are in bench/results/concurrency.md.
constexpr std::array<DeviceSharing, 2> kCalibrated{{
    {"NVIDIA H100 80GB HBM3", 0.325, 0.90, "bench/results/concurrency.md, 2026-11-26"},
    {"NVIDIA H200", 0.375, 1.00, "bench/results/concurrency.md, 2026-11-26"},
}};

}  // namespace

double EffectiveShare(double share, const SharingModel& model) {
  const double s = std::clamp(share, 0.0, 1.0);
  if (model.identity()) return s;
  const double effective = model.floor + (1.0 - model.floor) * std::pow(s, model.exponent);
  return std::clamp(effective, s, 1.0);
}

std::optional<SharingModel> CalibratedSharing(std::string_view device_name) {
  for (const DeviceSharing& d : kCalibrated) {
    if (d.device == device_name) {
      return SharingModel{d.floor, d.exponent,
                          "calibrated on " + std::string(d.device) + " (" + std::string(d.measured) + ")"};
    }
  }
  return std::nullopt;
}

SharingModel SharingFor(std::string_view device_name) {
  if (std::optional<SharingModel> calibrated = CalibratedSharing(device_name)) return *calibrated;
  SharingModel identity;
  identity.source = device_name.empty() ? "uncalibrated (device unknown)"
                                        : "uncalibrated (no calibration for " + std::string(device_name) + ")";
  return identity;
}

}  // namespace nimble::analysis
