// cuBLASLt's workspace for the process, matched to cuBLAS's. PyTorch runs addmm with a 1-D bias (every
// nn.Linear and GPT-2's Conv1D) through cuBLASLt's bias epilogue with a workspace of
// CUBLASLT_WORKSPACE_SIZE KiB, 1 MiB unless set, while plain matmuls get cuBLAS's workspace (32 MiB on
// Hopper). With 1 MiB cuBLASLt cannot split K, and on GPT-2 at sequence 128 on an H100 it picked GEMM
// kernels that made the whole forward 1.6x slower (bench/results/transformers.md). TorchScript's own
// executor hides this by decomposing addmm into mm + add; Nimble runs addmm as written, so it gives
// cuBLASLt the same workspace as cuBLAS instead. PyTorch reads the variable once, at the process's first
// cuBLASLt matmul: call this before it. Process-wide; call from one thread.
#pragma once

#include <cstdint>
#include <string>

namespace nimble::accelerate {

struct BlasWorkspaces {
  int64_t cublas_bytes = 0;    // cuBLAS's workspace (CUBLAS_WORKSPACE_CONFIG, or PyTorch's per-GPU default)
  int64_t cublaslt_bytes = 0;  // what cuBLASLt gets in this process now
  bool set_here = false;       // CUBLASLT_WORKSPACE_SIZE was unset and this call set it
  // Empty when cuBLASLt's workspace is at least cuBLAS's; otherwise why not and what to do.
  std::string warning;
};

// Sets CUBLASLT_WORKSPACE_SIZE to cuBLAS's workspace size when the variable is unset (a value the user
// set is kept), then reads back what cuBLASLt gets. Needs a CUDA device; without one it changes nothing
// and returns zeros.
BlasWorkspaces MatchBlasLtWorkspace();

}  // namespace nimble::accelerate
