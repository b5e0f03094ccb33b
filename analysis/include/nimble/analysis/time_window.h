// A half-open span of time on a trace's clock, the unit every timeline metric is computed over (a run's
// activity span, one NVTX iteration). A plain value; no threading concerns.
#pragma once

#include <cstdint>

namespace nimble::analysis {

// Half-open [start_ns, end_ns) on the trace's clock.
struct TimeWindow {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int64_t dur_ns() const { return end_ns - start_ns; }
  friend bool operator==(const TimeWindow&, const TimeWindow&) = default;
};

}  // namespace nimble::analysis
