// Why the GPU sat idle: one cause per hole in a device's active time, from the API, sync and copy records.
// The classifier indexes the trace once and is then read-only (safe to share between threads).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "nimble/core/activity.h"
#include "nimble/core/trace.h"

namespace nimble::analysis {

// The rules, in order; the first that holds wins:
//   1. kMemoryCopy      a copy to or from host memory ran during the gap (the GPU was waiting on data);
//   2. kSynchronization a synchronization record of the device overlaps the gap (the host was blocked
//                       on the GPU or an event while the queue drained);
//   3. kHostLaunchLate  the API call that launched the work ending the gap began after the gap began.
//                       Kernels replayed from a CUDA graph carry the correlation id of the graph launch,
//                       so the graph's first kernel can be late, the kernels inside it cannot;
//   4. kOther           anything else: launch latency, dependencies inside a graph, no API record,
//                       nothing after the gap in its window.
enum class GapCause : int32_t { kHostLaunchLate = 0, kSynchronization = 1, kMemoryCopy = 2, kOther = 3 };
inline constexpr size_t kNumGapCauses = 4;

// "host_launch_late", "synchronization", "memory_copy", "other".
std::string_view GapCauseName(GapCause cause);

struct IdleGap {
  int64_t start_ns = 0;
  int64_t dur_ns = 0;
  GapCause cause = GapCause::kOther;
  StreamId next_stream;            // stream of the work that ended the gap (invalid for a trailing gap)
  CorrelationId next_correlation;  // its correlation id
  bool next_from_graph = false;    // that work was replayed from a CUDA graph
  friend bool operator==(const IdleGap&, const IdleGap&) = default;
};

// Idle time and number of gaps per cause.
struct GapTotals {
  std::array<int64_t, kNumGapCauses> dur_ns{};
  std::array<int64_t, kNumGapCauses> count{};
  void Add(const IdleGap& gap);
  void Add(const GapTotals& other);
  int64_t dur_ns_of(GapCause cause) const { return dur_ns[static_cast<size_t>(cause)]; }
};

// True for copies that read or write host memory; device-side copies count as GPU activity instead.
bool InvolvesHost(const MemcpyRecord& copy);

// The `n` longest gaps, longest first (ties: earlier first).
std::vector<IdleGap> LongestGaps(std::vector<IdleGap> gaps, size_t n);

class GapClassifier {
 public:
  GapClassifier(const Trace& trace, DeviceId device);

  // Cause of the idle span [start_ns, end_ns); `next` is the correlation id of the work ending it, if any.
  GapCause Classify(int64_t start_ns, int64_t end_ns, std::optional<CorrelationId> next) const;

 private:
  struct Span {
    int64_t start_ns;
    int64_t end_ns;
  };
  static bool Overlaps(const std::vector<Span>& merged, int64_t start_ns, int64_t end_ns);

  std::unordered_map<int64_t, int64_t> api_start_ns_;  // earliest API call start per correlation id
  std::vector<Span> syncs_;        // merged
  std::vector<Span> host_copies_;  // merged
};

}  // namespace nimble::analysis
