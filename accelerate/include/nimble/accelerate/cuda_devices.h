// The CUDA devices libtorch sees, asked without a libtorch header so that the CLI can decide before
// loading a model whether a GPU run is possible at all. Thread-safe (libtorch caches the answers).
#pragma once

#include <string>

#include "nimble/core/status.h"

namespace nimble::accelerate {

// 0 where there is no driver or no device.
int CudaDeviceCount();

// "NVIDIA H100 80GB HBM3" for "cuda" or "cuda:N"; InvalidArgument for another device string,
// Unavailable when that device does not exist.
StatusOr<std::string> CudaDeviceName(const std::string& device);

}  // namespace nimble::accelerate
