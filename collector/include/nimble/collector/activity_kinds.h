// The activity kinds a collector can enable, by the names users type (`--kinds kernel,memcpy`).
// Header-only and free of CUPTI so that `nimble-prof record` validates --kinds in builds without CUDA.
// Values are plain bit sets; no threading concerns.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace nimble::collector {

enum class ActivityKind : uint32_t {
  kKernel = 1u << 0,               // CONCURRENT_KERNEL
  kMemcpy = 1u << 1,
  kMemset = 1u << 2,
  kRuntime = 1u << 3,              // CUDA runtime API calls
  kDriver = 1u << 4,               // CUDA driver API calls
  kSync = 1u << 5,                 // SYNCHRONIZATION
  kNvtx = 1u << 6,                 // MARKER (needs NVTX_INJECTION64_PATH = libcupti)
  kExternalCorrelation = 1u << 7,
  kOverhead = 1u << 8,             // CUPTI's own overhead
};

struct ActivityKindName {
  ActivityKind kind;
  std::string_view name;
};

inline constexpr std::array<ActivityKindName, 9> kActivityKindNames{{
    {ActivityKind::kKernel, "kernel"},
    {ActivityKind::kMemcpy, "memcpy"},
    {ActivityKind::kMemset, "memset"},
    {ActivityKind::kRuntime, "runtime"},
    {ActivityKind::kDriver, "driver"},
    {ActivityKind::kSync, "sync"},
    {ActivityKind::kNvtx, "nvtx"},
    {ActivityKind::kExternalCorrelation, "external_correlation"},
    {ActivityKind::kOverhead, "overhead"},
}};

// A set of kinds; the default set is every kind.
class ActivityKindSet {
 public:
  constexpr ActivityKindSet() = default;  // empty
  static constexpr ActivityKindSet All() { return ActivityKindSet((1u << kActivityKindNames.size()) - 1); }
  static constexpr ActivityKindSet None() { return ActivityKindSet(0); }

  constexpr bool contains(ActivityKind k) const { return (bits_ & static_cast<uint32_t>(k)) != 0; }
  constexpr void insert(ActivityKind k) { bits_ |= static_cast<uint32_t>(k); }
  constexpr void erase(ActivityKind k) { bits_ &= ~static_cast<uint32_t>(k); }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr uint32_t bits() const { return bits_; }
  friend constexpr bool operator==(ActivityKindSet, ActivityKindSet) = default;

  // "kernel,memcpy,..." in the order of kActivityKindNames.
  std::string ToString() const {
    std::string out;
    for (const auto& [kind, name] : kActivityKindNames) {
      if (!contains(kind)) continue;
      if (!out.empty()) out += ',';
      out += name;
    }
    return out;
  }

 private:
  constexpr explicit ActivityKindSet(uint32_t bits) : bits_(bits) {}
  uint32_t bits_ = 0;
};

// Parses "kernel,memcpy" (or "all"). On an unknown or empty name returns false and sets `bad` to it.
inline bool ParseActivityKinds(std::string_view text, ActivityKindSet& out, std::string& bad) {
  out = ActivityKindSet::None();
  if (text == "all") {
    out = ActivityKindSet::All();
    return true;
  }
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t comma = std::min(text.find(',', pos), text.size());
    const std::string_view word = text.substr(pos, comma - pos);
    bool known = false;
    for (const auto& [kind, name] : kActivityKindNames) {
      if (word == name) {
        out.insert(kind);
        known = true;
      }
    }
    if (!known) {
      bad = std::string(word);
      return false;
    }
    pos = comma + 1;
  }
  return !out.empty();
}

// How kernels and copies replayed from CUDA graphs are recorded (`--graph-trace`):
// - kNode: one record per node, like any launch (the default; what op attribution needs);
// - kGraph: one record per launch of a whole graph (CUPTI_ACTIVITY_KIND_GRAPH_TRACE), from its first
//   node's start to its last node's end, and none for its nodes. CUPTI's per-node timestamps cost a
//   replay about 0.23 us per node on an H100; at graph level that cost is gone
//   (bench/results/cupti_settings.md). Launches outside graphs are recorded as usual either way. It
//   covers the whole run: switched on mid-run from an NVTX range it crashed the program, so
//   `record` refuses it with --capture-range or --delay-ms.
enum class GraphTrace : uint8_t { kNode, kGraph };

// "node" or "graph"; false for anything else.
inline bool ParseGraphTrace(std::string_view text, GraphTrace& out) {
  if (text == "node") {
    out = GraphTrace::kNode;
  } else if (text == "graph") {
    out = GraphTrace::kGraph;
  } else {
    return false;
  }
  return true;
}

// Where kernel start and end timestamps come from (`--kernel-timestamps`):
// - kSoftware: CUPTI's instrumentation of each launch (the default; every GPU);
// - kHardware: the GPU's hardware event system (cuptiActivityEnableHWTrace), which skips that
//   instrumentation. CUPTI 13.0 offers it on Blackwell GPUs only; where CUPTI refuses it, kernels are
//   recorded with software timestamps and the run's stats say so (collector.hardware_timestamps_refused).
enum class KernelTimestamps : uint8_t { kSoftware, kHardware };

// "software" or "hardware"; false for anything else.
inline bool ParseKernelTimestamps(std::string_view text, KernelTimestamps& out) {
  if (text == "software") {
    out = KernelTimestamps::kSoftware;
  } else if (text == "hardware") {
    out = KernelTimestamps::kHardware;
  } else {
    return false;
  }
  return true;
}

}  // namespace nimble::collector
