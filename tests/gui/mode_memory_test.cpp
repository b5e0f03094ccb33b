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

// A nimble-prof recording (eager: its own measurement, predictions for the others) beside
// nimble-accelerate's two runs: each captured mode's measured speedup comes from its own run, eager
// from nimble-accelerate's baseline, and a mode no accelerate run names keeps the recording's prediction.
TEST(ModeSpeedupsTest, CapturedModesComeFromTheirOwnRunsAndShareTheirBaseline) {
  const Speedup recorded_eager{RunMode::kEager, 5.4, 5.9, 5.4};
  const Speedup predicted_single{RunMode::kAotSingle, 0, 4.0, 5.4};
  const Speedup predicted_multi{RunMode::kAotMulti, 0, 2.1, 5.4};
  const Speedup baseline{RunMode::kEager, 4.6, 5.3, 4.6};
  const Speedup single{RunMode::kAotSingle, 3.8, 3.8, 4.6};
  const Speedup multi{RunMode::kAotMulti, 2.1, 2.0, 4.6};
  std::vector<std::pair<RunMode, std::vector<Speedup>>> runs = {
      {RunMode::kEager, {recorded_eager, predicted_single, predicted_multi}},
      {RunMode::kAotSingle, {baseline, single}},
      {RunMode::kAotMulti, {baseline, multi}},
  };
  EXPECT_EQ(CollectModeSpeedups(runs), (std::vector<Speedup>{baseline, single, multi}));
  runs.pop_back();  // no multi-stream run: the recording's prediction stays
  EXPECT_EQ(CollectModeSpeedups(runs), (std::vector<Speedup>{baseline, single, predicted_multi}));
  runs.pop_back();  // the recording alone
  EXPECT_EQ(CollectModeSpeedups(runs), (std::vector<Speedup>{recorded_eager, predicted_single, predicted_multi}));
  EXPECT_TRUE(CollectModeSpeedups({}).empty());
}

}  // namespace
}  // namespace nimble::gui
