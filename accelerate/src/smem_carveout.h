// The shared-memory carveout of a captured graph's kernel nodes. An SM splits its memory between L1 and
// shared memory per kernel (the carveout), and takes a block of another kernel only if its split leaves
// that block's shared memory free. An ATen elementwise kernel uses none, so the SMs it runs on are set
// for almost none: a kernel that another branch of the graph dispatches while it drains can go only to
// the SMs already free, and a grid of fewer blocks than SMs is packed onto those few for its whole run
// (32 blocks on 2-3 SMs, 12.5x as long: bench/diag/graph_placement.cu, bench/results/concurrency.md,
// "Shared-memory carveout"). Asking a large carveout of the kernels without shared memory lets such
// blocks join their SMs. Kernels with shared memory of their own keep their split: asked of every
// kernel node, it cost float32 MoE 6-10 %. Private; the constants are in nimble/accelerate/smem_carveout.h.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "nimble/accelerate/smem_carveout.h"
#include "nimble/core/status.h"

namespace nimble::accelerate {

// The kernel nodes of `graph` (its own, not those of child graphs) that use no shared memory, dynamic or
// static, whatever launched them (read through the driver: the runtime cannot read a kernel another
// library launched through the driver); each is given
// cudaLaunchAttributePreferredSharedMemoryCarveout = `percent`
// before the graph is instantiated, unless `percent` is kKeepCarveout. Returns how many there are.
// A kernel node the driver cannot read counts as using shared memory. InvalidArgument for a percentage
// out of range; Internal when the driver's calls are missing or, setting a percentage, it could read
// none of the kernel nodes; a failed CUDA call is an error naming it (CudaStatus), the runtime's last
// error cleared, and the graph may then be part set.
StatusOr<int32_t> SetKernelCarveout(cudaGraph_t graph, int32_t percent);

}  // namespace nimble::accelerate
