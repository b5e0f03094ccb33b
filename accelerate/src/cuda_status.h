// A CUDA runtime result as a Status naming what it was for: out of memory is Unavailable, any other
// error Internal with the error's name and text. Private to accelerate/src; pure function.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "nimble/core/status.h"

namespace nimble::accelerate {

inline Status CudaStatus(cudaError_t code, const std::string& what) {
  if (code == cudaSuccess) return OkStatus();
  if (code == cudaErrorMemoryAllocation) return Unavailable(what + ": out of GPU memory");
  return Internal(what + ": " + cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ")");
}

}  // namespace nimble::accelerate
