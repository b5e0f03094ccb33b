#include "nimble/accelerate/blas_workspace.h"

#include <ATen/Context.h>
#include <ATen/cuda/CUDAContextLight.h>

#include <cstdlib>

namespace nimble::accelerate {

constexpr const char* kLtWorkspaceEnv = "CUBLASLT_WORKSPACE_SIZE";  // KiB, read by PyTorch

BlasWorkspaces MatchBlasLtWorkspace() {
  BlasWorkspaces sizes;
  try {
    if (!at::hasCUDA()) return sizes;
    sizes.cublas_bytes = static_cast<int64_t>(at::cuda::getChosenWorkspaceSize());
    if (std::getenv(kLtWorkspaceEnv) == nullptr && sizes.cublas_bytes > 0) {
      const std::string kib = std::to_string(sizes.cublas_bytes / 1024);
      sizes.set_here = ::setenv(kLtWorkspaceEnv, kib.c_str(), /*overwrite=*/0) == 0;
    }
    sizes.cublaslt_bytes = static_cast<int64_t>(at::cuda::getCUDABlasLtWorkspaceSize());
  } catch (const std::exception& e) {
    sizes.warning = std::string("could not read the cuBLAS workspace sizes: ") + e.what();
    return sizes;
  }
  if (sizes.cublaslt_bytes < sizes.cublas_bytes) {
    sizes.warning = "cuBLASLt's workspace is " + std::to_string(sizes.cublaslt_bytes / 1024) + " KiB against cuBLAS's " +
                    std::to_string(sizes.cublas_bytes / 1024) + " KiB" +
                    (std::getenv(kLtWorkspaceEnv) != nullptr && !sizes.set_here
                         ? " (CUBLASLT_WORKSPACE_SIZE is set)"
                         : " (a matmul ran before nimble could set it)") +
                    ": linear layers may pick slower GEMM kernels; set CUBLASLT_WORKSPACE_SIZE=" +
                    std::to_string(sizes.cublas_bytes / 1024) + " before the process's first matmul";
  }
  return sizes;
}

}  // namespace nimble::accelerate
