// The values CaptureOptions::smem_carveout and TrainingOptions::smem_carveout take: a percentage of the
// most shared memory an SM offers, asked for on a captured graph's kernel nodes that use no shared
// memory, or kKeepCarveout, or (training) kMeasureCarveout; and the carveout set on a graph captured
// outside Nimble. What it does and why: accelerate/src/smem_carveout.h.
#pragma once

#include <cstdint>

#include "nimble/core/status.h"

namespace nimble::accelerate {

// Leave each kernel's carveout to its function and the driver.
inline constexpr int32_t kKeepCarveout = -1;

// The carveout a multi-stream capture is also timed with, where the choice is measured: the most shared
// memory, so that SMs running kernels without any still take other kernels' blocks.
inline constexpr int32_t kTriedCarveout = 100;

// TrainingOptions::smem_carveout only (CaptureOptions refuses it): the multi-stream capture timed with
// each kernel's own carveout and with kTriedCarveout, the second kept only where faster by more than
// kMinCarveoutGain (a lower time alone picks by noise where the two are within it).
inline constexpr int32_t kMeasureCarveout = -2;
inline constexpr double kMinCarveoutGain = 0.01;

// For a graph captured outside Nimble (the Python package's training capture, torch.cuda.CUDAGraph(
// keep_graph=True)), given as the integer raw_cuda_graph() returns so that no CUDA type crosses the
// public API: its kernel nodes without shared memory given `percent` (0-100; kKeepCarveout only counts
// them) before it is instantiated. Returns how many there are. InvalidArgument for 0 or a percentage out
// of range; a failed CUDA call is an error naming it.
StatusOr<int32_t> SetGraphKernelCarveout(std::uintptr_t raw_graph, int32_t percent);

}  // namespace nimble::accelerate
