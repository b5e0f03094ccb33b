// How much of the GPU one kernel occupies: resident blocks per SM, limited by threads (whole warps),
// registers (allocated per warp in units of 256), shared memory and the device's block limit, and then
// the share of all SMs' block slots that its grid fills, capped at 1. This is what lets the simulator
// run small kernels side by side and serialise kernels that fill the GPU. Pure functions.
#pragma once

#include <cstdint>
#include <string_view>

#include "nimble/core/activity.h"

namespace nimble::analysis {

enum class OccupancyLimit : int32_t { kThreads, kRegisters, kSharedMemory, kBlocks, kUnknownDevice };

std::string_view OccupancyLimitName(OccupancyLimit limit);

struct Occupancy {
  int32_t blocks_per_sm = 0;  // resident blocks of this kernel per SM (at least 1: it did run)
  double gpu_share = 1.0;     // min(1, grid blocks / (sm_count * blocks_per_sm)), in (0, 1]
  double wave_share = 1.0;    // the slots filled averaged over its waves: grid / (slots * waves), in (0, 1]
  OccupancyLimit limit = OccupancyLimit::kUnknownDevice;  // what bounds blocks_per_sm
};

// A device without SM limits (sm_count or max_threads_per_sm is 0) gives a share of 1: with nothing known,
// assume the kernel fills the GPU, which predicts no gain from running it beside others.
Occupancy EstimateOccupancy(const KernelRecord& kernel, const DeviceInfo& device);

}  // namespace nimble::analysis
