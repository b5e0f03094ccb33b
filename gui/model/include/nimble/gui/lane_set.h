// Collects items into lanes while a run is being read: one staging row per lane key, found quickly for
// rows that arrive interleaved across streams. Finish() sorts each lane, splits it into rows of disjoint
// items (first fit, so nested NVTX ranges and overlapping graph kernels get rows of their own) and
// orders the lanes for display. One LaneSet per loading thread; Absorb() joins them in order.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "nimble/gui/run_timeline.h"

namespace nimble::gui {

struct LaneKey {
  LaneKind kind = LaneKind::kStream;
  int64_t owner = -1;  // device (GPU lanes) or thread (host lanes)
  int64_t stream = -1; // stream lanes only
  friend bool operator==(const LaneKey&, const LaneKey&) = default;
  friend auto operator<=>(const LaneKey&, const LaneKey&) = default;
};

class LaneSet {
 public:
  // The staging row of the lane `key`, created empty on first use.
  RowItems& Staging(const LaneKey& key);
  // Appends every lane of `later` after this set's items of the same lane (`later` read later indexes).
  void Absorb(LaneSet&& later);
  // Sorted, split and ordered lanes: GPU lanes by device (its idle lane first, then streams by id),
  // then host lanes by thread (NVTX ranges, then API calls). Lanes are finished on up to `threads` threads.
  std::vector<Lane> Finish(unsigned threads = 1);

  size_t lane_count() const { return keys_.size(); }

 private:
  struct KeyHash {
    size_t operator()(const LaneKey& k) const {
      return std::hash<int64_t>{}(k.owner * 1'000'003 + k.stream * 31 + static_cast<int64_t>(k.kind));
    }
  };
  std::vector<LaneKey> keys_;
  std::vector<RowItems> staging_;
  std::unordered_map<LaneKey, size_t, KeyHash> index_;
  size_t last_ = 0;  // the lane found last: rows of one stream often come in runs
};

// Splits items sorted by start into rows of disjoint items, first fit: an item goes to the first row
// whose last item ends at or before its start. Keeps a single row when no items overlap.
std::vector<RowItems> SplitIntoDisjointRows(RowItems items);

}  // namespace nimble::gui
