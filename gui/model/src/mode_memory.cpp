#include "nimble/gui/mode_memory.h"

#include <algorithm>
#include <optional>
#include <string>

namespace nimble::gui {
namespace {

std::optional<int64_t> Find(const std::vector<Metric>& metrics, const std::string& name) {
  for (const Metric& m : metrics) {
    if (m.name == name && m.window < 0) return static_cast<int64_t>(m.value);
  }
  return std::nullopt;
}

bool Has(const std::vector<ModeMemory>& out, RunMode mode) {
  return std::any_of(out.begin(), out.end(), [&](const ModeMemory& m) { return m.mode == mode; });
}

}  // namespace

std::vector<ModeMemory> CollectModeMemory(const std::vector<std::pair<RunMode, std::vector<Metric>>>& runs) {
  std::vector<ModeMemory> out;
  for (const auto& [mode, metrics] : runs) {
    // Runs stored before memory was counted above the weights carry peak_memory_bytes alone, with
    // another meaning: they are left out.
    const auto reserved = Find(metrics, "peak_memory_bytes");
    const auto allocated = Find(metrics, "peak_allocated_bytes");
    const auto pool = Find(metrics, "graph_pool_bytes");
    if (reserved && allocated && pool && !Has(out, mode)) out.push_back({mode, *allocated, *reserved, *pool});
    const auto eager = Find(metrics, "baseline_peak_memory_bytes");
    if (eager && !Has(out, RunMode::kEager)) {
      out.push_back({RunMode::kEager, Find(metrics, "baseline_peak_allocated_bytes").value_or(0), *eager, -1});
    }
  }
  std::sort(out.begin(), out.end(), [](const ModeMemory& a, const ModeMemory& b) { return a.mode < b.mode; });
  return out;
}

std::vector<Speedup> CollectModeSpeedups(const std::vector<std::pair<RunMode, std::vector<Speedup>>>& runs) {
  auto rank = [](RunMode run_mode, RunMode mode) {
    const bool accelerate = run_mode == RunMode::kAotSingle || run_mode == RunMode::kAotMulti;
    if (accelerate) return run_mode == mode ? 0 : 1;
    return run_mode == mode ? 2 : 3;
  };
  std::vector<std::pair<int, Speedup>> best;
  for (const auto& [run_mode, speedups] : runs) {
    for (const Speedup& s : speedups) {
      const int r = rank(run_mode, s.mode);
      auto same = std::find_if(best.begin(), best.end(), [&](const auto& b) { return b.second.mode == s.mode; });
      if (same == best.end()) {
        best.emplace_back(r, s);
      } else if (r < same->first) {
        *same = {r, s};
      }
    }
  }
  // RunMode is declared in the order the chart shows.
  std::sort(best.begin(), best.end(), [](const auto& a, const auto& b) { return a.second.mode < b.second.mode; });
  std::vector<Speedup> out;
  for (auto& [r, s] : best) out.push_back(s);
  return out;
}

}  // namespace nimble::gui
