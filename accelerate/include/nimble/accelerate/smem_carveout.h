// The shared-memory carveout asked for on every kernel node of a captured graph, for a graph captured
// outside Nimble too (the Python package's training capture), given as the integer raw_cuda_graph()
// returns, so that no CUDA type crosses the public API. Why: accelerate/src/smem_carveout.h.
#pragma once

#include <cstdint>

#include "nimble/core/status.h"

namespace nimble::accelerate {

// Leave each kernel's carveout to its function and the driver.
inline constexpr int32_t kKeepCarveout = -1;

// `raw_graph`: a cudaGraph_t, captured and not yet instantiated. Asks `percent` (0-100: of the largest
// shared memory an SM offers) for each of its kernel nodes; kKeepCarveout leaves them. The kernel nodes
// set. InvalidArgument for 0 or a percentage out of range; a failed CUDA call is an error naming it, the
// runtime's last error cleared.
StatusOr<int32_t> SetKernelCarveout(std::uintptr_t raw_graph, int32_t percent);

}  // namespace nimble::accelerate
