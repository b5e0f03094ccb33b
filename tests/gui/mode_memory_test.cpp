// Memory per mode from the metrics nimble-accelerate stores: each captured mode's own run, eager from
// the baseline metrics any of them carries, the first run of a mode winning, recordings without memory
// metrics adding nothing, whole-run metrics only.
#include "nimble/gui/mode_memory.h"

#include <gtest/gtest.h>

namespace nimble::gui {
namespace {

std::vector<Metric> AccelerateMetrics(double reserved, double allocated, double pool) {
  return {{"latency_median_ns", 1e6, "ns", -1},
          {"peak_allocated_bytes", allocated, "bytes", -1},
          {"peak_memory_bytes", reserved, "bytes", -1},
          {"graph_pool_bytes", pool, "bytes", -1},
          {"baseline_peak_allocated_bytes", 30, "bytes", -1},
          {"baseline_peak_memory_bytes", 40, "bytes", -1}};
}

TEST(ModeMemoryTest, OnePerModeInModeOrderWithEagerFromTheBaseline) {
  const std::vector<std::pair<RunMode, std::vector<Metric>>> runs = {
      {RunMode::kEager, {{"gpu_active_ns", 5, "ns", -1}}},  // a recording: no memory metrics
      {RunMode::kAotMulti, AccelerateMetrics(300, 100, 250)},
      {RunMode::kAotSingle, AccelerateMetrics(200, 100, 150)},
      {RunMode::kAotMulti, AccelerateMetrics(999, 999, 999)},  // a later run of a mode already shown
  };
  const std::vector<ModeMemory> memory = CollectModeMemory(runs);
  ASSERT_EQ(memory.size(), 3u);
  EXPECT_EQ(memory[0], (ModeMemory{RunMode::kEager, 30, 40, -1}));
  EXPECT_EQ(memory[1], (ModeMemory{RunMode::kAotSingle, 100, 200, 150}));
  EXPECT_EQ(memory[2], (ModeMemory{RunMode::kAotMulti, 100, 300, 250}));
}

TEST(ModeMemoryTest, RunsWithoutMemoryMetricsGiveNothing) {
  EXPECT_TRUE(CollectModeMemory({}).empty());
  const std::vector<std::pair<RunMode, std::vector<Metric>>> runs = {
      {RunMode::kAotSingle, {{"peak_memory_bytes", 7, "bytes", 3}}},  // an iteration's, not the run's
      {RunMode::kAotMulti, {{"peak_memory_bytes", 7, "bytes", -1}}},  // an older run's absolute peak
      {RunMode::kEager, {{"gpu_active_ns", 5, "ns", -1}}}};
  EXPECT_TRUE(CollectModeMemory(runs).empty());
}

}  // namespace
}  // namespace nimble::gui
