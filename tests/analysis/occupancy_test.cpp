#include "nimble/analysis/occupancy.h"

#include <gtest/gtest.h>

#include "trace_testing.h"

namespace nimble::analysis {
namespace {

KernelRecord Launch(int32_t grid, int32_t block, int32_t registers = 0, int32_t shared_bytes = 0) {
  KernelRecord k = testing::Kernel(0, 10);
  k.grid = {grid, 1, 1};
  k.block = {block, 1, 1};
  k.registers_per_thread = registers;
  k.dynamic_shared_bytes = shared_bytes;
  return k;
}

// SmallGpu: 10 SMs, 2048 threads, 32 blocks, 65536 registers and 100 KiB shared memory per SM.
TEST(OccupancyTest, ThreadsLimit) {
  const Occupancy o = EstimateOccupancy(Launch(1, 128), testing::SmallGpu());
  EXPECT_EQ(o.blocks_per_sm, 16);
  EXPECT_EQ(o.limit, OccupancyLimit::kThreads);
  EXPECT_DOUBLE_EQ(o.gpu_share, 1.0 / 160);
}

TEST(OccupancyTest, PartialWarpsTakeWholeWarps) {
  EXPECT_EQ(EstimateOccupancy(Launch(1, 100), testing::SmallGpu()).blocks_per_sm, 16);
}

TEST(OccupancyTest, BlockLimit) {
  const Occupancy o = EstimateOccupancy(Launch(1, 32), testing::SmallGpu());
  EXPECT_EQ(o.blocks_per_sm, 32);
  EXPECT_EQ(o.limit, OccupancyLimit::kBlocks);
}

TEST(OccupancyTest, RegisterLimitWithAllocationGranularity) {
  const Occupancy even = EstimateOccupancy(Launch(1, 256, 64), testing::SmallGpu());
  EXPECT_EQ(even.blocks_per_sm, 4);  // 64 * 256 = 16384 registers per block
  EXPECT_EQ(even.limit, OccupancyLimit::kRegisters);
  // 33 registers: 1056 per warp, rounded to 1280; 4 warps = 5120 per block; 65536 / 5120 = 12.
  EXPECT_EQ(EstimateOccupancy(Launch(1, 128, 33), testing::SmallGpu()).blocks_per_sm, 12);
}

TEST(OccupancyTest, SharedMemoryLimit) {
  const Occupancy o = EstimateOccupancy(Launch(1, 128, 0, 40 * 1024), testing::SmallGpu());
  EXPECT_EQ(o.blocks_per_sm, 2);
  EXPECT_EQ(o.limit, OccupancyLimit::kSharedMemory);
}

TEST(OccupancyTest, GridThatFillsEverySlotTakesTheWholeGpu) {
  EXPECT_DOUBLE_EQ(EstimateOccupancy(Launch(160, 128), testing::SmallGpu()).gpu_share, 1.0);
  EXPECT_DOUBLE_EQ(EstimateOccupancy(Launch(10000, 128), testing::SmallGpu()).gpu_share, 1.0);
  EXPECT_DOUBLE_EQ(EstimateOccupancy(Launch(80, 128), testing::SmallGpu()).gpu_share, 0.5);
}

// 160 slots: a grid of 200 blocks runs two waves, the second a quarter full; over its run it fills
// 200 / 320 of the slots. Within one wave the averaged share is the share.
TEST(OccupancyTest, WaveShareAveragesTheSlotsOverTheGridsWaves) {
  const Occupancy two_waves = EstimateOccupancy(Launch(200, 128), testing::SmallGpu());
  EXPECT_DOUBLE_EQ(two_waves.gpu_share, 1.0);
  EXPECT_DOUBLE_EQ(two_waves.wave_share, 200.0 / 320);
  EXPECT_DOUBLE_EQ(EstimateOccupancy(Launch(320, 128), testing::SmallGpu()).wave_share, 1.0);
  const Occupancy part = EstimateOccupancy(Launch(80, 128), testing::SmallGpu());
  EXPECT_DOUBLE_EQ(part.wave_share, part.gpu_share);
}

TEST(OccupancyTest, BlockTooBigStillGetsOneSlot) {
  const Occupancy o = EstimateOccupancy(Launch(20, 128, 0, 200 * 1024), testing::SmallGpu());
  EXPECT_EQ(o.blocks_per_sm, 1);
  EXPECT_DOUBLE_EQ(o.gpu_share, 1.0);
}

TEST(OccupancyTest, UnknownDeviceAssumesTheWholeGpu) {
  const Occupancy o = EstimateOccupancy(Launch(1, 32), DeviceInfo{});
  EXPECT_EQ(o.limit, OccupancyLimit::kUnknownDevice);
  EXPECT_DOUBLE_EQ(o.gpu_share, 1.0);
  EXPECT_EQ(OccupancyLimitName(o.limit), "unknown_device");
}

}  // namespace
}  // namespace nimble::analysis
