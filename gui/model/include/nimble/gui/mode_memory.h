// GPU memory per execution mode, from the metrics nimble-accelerate stores with each captured mode's
// run (peak_allocated_bytes, peak_memory_bytes and graph_pool_bytes; the libtorch forward's as
// baseline_peak_*): what the speedup chart draws beside the speedups. Pure functions.
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

}  // namespace nimble::gui
