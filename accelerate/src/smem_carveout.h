// The shared-memory carveout of a captured graph's kernel nodes. An SM splits its memory between L1 and
// shared memory per kernel (the carveout), and takes a block of another kernel only if its split leaves
// that block's shared memory free. An ATen elementwise kernel uses none, so the SMs it runs on are set
// for almost none: a kernel that another branch of the graph dispatches while it drains can go only to
// the SMs already free, and a grid of fewer blocks than SMs is packed onto those few for its whole run
// (32 blocks on 1-3 SMs, 13x as long: bench/diag/graph_placement.cu, bench/results/concurrency.md,
// "Shared-memory carveout"). Asking the same carveout of every kernel node keeps the SMs' split alike,
// so blocks are placed by what they use. Private; the CUDA-free entry is nimble/accelerate/smem_carveout.h.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "nimble/accelerate/smem_carveout.h"
#include "nimble/core/status.h"

namespace nimble::accelerate {

// Sets cudaLaunchAttributePreferredSharedMemoryCarveout to `percent` on each kernel node of `graph` (its
// own nodes, not those of child graphs), before it is instantiated; kKeepCarveout sets none. The kernel
// nodes set. InvalidArgument for a percentage out of range; a failed CUDA call is an error naming it
// (CudaStatus), the runtime's last error cleared, and the graph may then be part set.
StatusOr<int32_t> SetKernelCarveout(cudaGraph_t graph, int32_t percent);

}  // namespace nimble::accelerate
