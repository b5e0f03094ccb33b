#include "nimble/analysis/occupancy.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace nimble::analysis {
namespace {

constexpr int64_t kWarpThreads = 32;
constexpr int64_t kRegisterUnit = 256;  // registers are handed to a warp in blocks of this size

int64_t RoundUp(int64_t value, int64_t unit) { return (value + unit - 1) / unit * unit; }

}  // namespace

std::string_view OccupancyLimitName(OccupancyLimit limit) {
  switch (limit) {
    case OccupancyLimit::kThreads: return "threads";
    case OccupancyLimit::kRegisters: return "registers";
    case OccupancyLimit::kSharedMemory: return "shared_memory";
    case OccupancyLimit::kBlocks: return "blocks";
    case OccupancyLimit::kUnknownDevice: return "unknown_device";
  }
  return "unknown_device";
}

Occupancy EstimateOccupancy(const KernelRecord& kernel, const DeviceInfo& device) {
  Occupancy out;
  if (device.sm_count <= 0 || device.max_threads_per_sm <= 0) return out;
  const int64_t warps = std::max<int64_t>(1, (kernel.block.count() + kWarpThreads - 1) / kWarpThreads);
  int64_t best = std::numeric_limits<int64_t>::max();
  auto limit_by = [&](int64_t blocks, OccupancyLimit why) {
    if (blocks < best) {
      best = blocks;
      out.limit = why;
    }
  };
  limit_by(device.max_threads_per_sm / (warps * kWarpThreads), OccupancyLimit::kThreads);
  if (device.max_blocks_per_sm > 0) limit_by(device.max_blocks_per_sm, OccupancyLimit::kBlocks);
  if (kernel.registers_per_thread > 0 && device.max_registers_per_sm > 0) {
    const int64_t per_warp = RoundUp(int64_t{kernel.registers_per_thread} * kWarpThreads, kRegisterUnit);
    limit_by(device.max_registers_per_sm / (per_warp * warps), OccupancyLimit::kRegisters);
  }
  const int64_t shared = int64_t{kernel.static_shared_bytes} + kernel.dynamic_shared_bytes;
  if (shared > 0 && device.max_shared_bytes_per_sm > 0) {
    limit_by(device.max_shared_bytes_per_sm / shared, OccupancyLimit::kSharedMemory);
  }
  out.blocks_per_sm = static_cast<int32_t>(std::max<int64_t>(1, best));
  const double slots = static_cast<double>(device.sm_count) * out.blocks_per_sm;
  out.gpu_share = std::clamp(static_cast<double>(kernel.grid.count()) / slots, 0.0, 1.0);
  if (out.gpu_share <= 0) out.gpu_share = 1.0 / slots;  // a recorded kernel has at least one block
  const double blocks = std::max(1.0, static_cast<double>(kernel.grid.count()));
  out.wave_share = std::clamp(blocks / (slots * std::ceil(blocks / slots)), 1.0 / slots, 1.0);
  return out;
}

}  // namespace nimble::analysis
