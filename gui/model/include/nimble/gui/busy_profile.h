// How busy one GPU was over any stretch of time, read from its idle gaps (analysis's, as the device's
// idle lane holds them): busy = the part inside its first-to-last-activity span that no gap covers. A
// prefix sum of gap lengths (8 bytes a gap) answers each question in O(log gaps), so the busy chart of
// a few hundred columns costs well under a millisecond at any zoom. Built on the loading thread, then
// read-only; the gaps row is passed in, not held.
#pragma once

#include <cstdint>
#include <vector>

#include "nimble/gui/row_items.h"
#include "nimble/gui/time_scale.h"

namespace nimble::gui {

class BusyProfile {
 public:
  BusyProfile() = default;
  // `gaps`: disjoint, sorted by start, inside [span_start_ns, span_end_ns).
  BusyProfile(const RowItems& gaps, int64_t span_start_ns, int64_t span_end_ns);

  // Busy time in [start_ns, end_ns) (relative times); `gaps` must be the row it was built from.
  int64_t BusyNs(const RowItems& gaps, int64_t start_ns, int64_t end_ns) const;
  // The busy share of each `column_px`-wide column of `grid` (the last one may be narrower), in [0, 1].
  void Columns(const RowItems& gaps, const PixelGrid& grid, int32_t column_px, std::vector<float>& out) const;

  size_t bytes() const { return idle_before_.capacity() * sizeof(int64_t); }

 private:
  int64_t IdleNs(const RowItems& gaps, int64_t start_ns, int64_t end_ns) const;

  int64_t span_start_ns_ = 0;
  int64_t span_end_ns_ = 0;
  std::vector<int64_t> idle_before_;  // idle_before_[i]: total length of gaps 0 .. i-1
};

}  // namespace nimble::gui
