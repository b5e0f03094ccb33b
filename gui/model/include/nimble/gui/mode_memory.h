// What the speedup chart draws per execution mode: the speedups the runs store, and GPU memory from
// the metrics nimble-accelerate stores with each captured mode's run (peak_allocated_bytes,
// peak_memory_bytes and graph_pool_bytes; the libtorch forward's as baseline_peak_*). Pure functions.
#pragma once

#include <cstdint>
#include <vector>

#include "nimble/core/run.h"

namespace nimble::gui {

struct ModeMemory {
  RunMode mode = RunMode::kEager;
  int64_t peak_allocated_bytes = 0;  // above the weights and inputs
  int64_t peak_reserved_bytes = 0;
  int64_t graph_pool_bytes = -1;     // -1: not a captured graph (eager)
  friend bool operator==(const ModeMemory&, const ModeMemory&) = default;
};

// One entry per mode, ordered eager, aot-single, aot-multi: each run's metrics with its mode (the
// first run naming a mode wins); eager from the baseline_* metrics of the first run carrying them.
// Runs without memory metrics (a nimble-prof recording), and runs stored before the memory was counted
// above the weights (peak_memory_bytes alone), add nothing.
std::vector<ModeMemory> CollectModeMemory(const std::vector<std::pair<RunMode, std::vector<Metric>>>& runs);

// One speedup per mode, ordered eager, aot-single, aot-multi, from each run's stored speedups, by
// preference: a captured mode's own run (nimble-accelerate measured that mode there), then any of
// nimble-accelerate's runs (its eager entry is the libtorch baseline it timed beside the replays, so
// all bars share one baseline), then a recording's own mode, then the predictions a recording's report
// stores for the other modes; the first run wins a tie.
std::vector<Speedup> CollectModeSpeedups(const std::vector<std::pair<RunMode, std::vector<Speedup>>>& runs);

}  // namespace nimble::gui
