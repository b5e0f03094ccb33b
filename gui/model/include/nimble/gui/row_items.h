// One row of a timeline lane: intervals sorted by start, stored as parallel arrays (24 bytes an item)
// so that 10 million kernels fit in a few hundred MB. Each item has a label (a StringId of the run's
// strings, or a gap cause) and an ItemRef naming the record it came from. Built with Add() then Finish();
// read-only afterwards, and then safe to share between threads.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "nimble/gui/lod_levels.h"

namespace nimble::gui {

// What an item stands for; the order is the tie-break of equal starts (as the analysis sorts activity).
// kGraphLaunch: a whole CUDA graph recorded at graph level (`nimble-prof record --graph-trace graph`).
enum class ItemKind : uint32_t { kKernel = 0, kMemset = 1, kMemcpy = 2, kApiCall = 3, kRange = 4, kGap = 5, kGraphLaunch = 6 };

// A record reference packed in 32 bits: 3 bits of kind, 29 bits of position in its table of the run.
class ItemRef {
 public:
  static constexpr uint32_t kMaxIndex = (uint32_t{1} << 29) - 1;
  ItemRef() = default;
  ItemRef(ItemKind kind, uint32_t index) : bits_((static_cast<uint32_t>(kind) << 29) | index) {}
  static ItemRef FromBits(uint32_t bits) { ItemRef r; r.bits_ = bits; return r; }

  ItemKind kind() const { return static_cast<ItemKind>(bits_ >> 29); }
  uint32_t index() const { return bits_ & kMaxIndex; }
  uint32_t bits() const { return bits_; }
  friend auto operator<=>(ItemRef, ItemRef) = default;

 private:
  uint32_t bits_ = 0;
};

class RowItems {
 public:
  // An item [start_ns, end_ns), end_ns >= start_ns. An empty item is drawn and hit as if one ns long
  // (its "effective end"), but end_ns() keeps the recorded end.
  void Add(int64_t start_ns, int64_t end_ns, int32_t label, ItemRef ref);
  void Reserve(size_t n);
  // Appends all items of `other` (before Finish of either).
  void Append(const RowItems& other);
  // Sorts by (start, ref) unless already sorted, indexes overlaps and builds the level-of-detail
  // summary. Call once, after the last Add.
  void Finish();

  size_t size() const { return start_ns_.size(); }
  bool empty() const { return start_ns_.empty(); }
  int64_t start_ns(size_t i) const { return start_ns_[i]; }
  int64_t end_ns(size_t i) const { return end_ns_[i]; }
  int32_t label(size_t i) const { return label_[i]; }
  ItemRef ref(size_t i) const { return ItemRef::FromBits(ref_[i]); }
  int64_t effective_end_ns(size_t i) const { return end_ns_[i] > start_ns_[i] ? end_ns_[i] : start_ns_[i] + 1; }
  // The largest effective end among items 0..i: non-decreasing in i, which makes "first item reaching t"
  // a binary search even when items nest or overlap.
  int64_t max_end_ns(size_t i) const { return max_end_ns_.empty() ? effective_end_ns(i) : max_end_ns_[i]; }
  // True when some item ends after a later one (then a prefix maximum is stored, 8 more bytes an item).
  bool has_overlaps() const { return !max_end_ns_.empty(); }
  std::span<const int64_t> starts() const { return start_ns_; }
  const LodLevels& levels() const { return levels_; }

  // Sequence interface shared with SpanLevel, for the draw-list walk.
  int64_t start(size_t i) const { return start_ns_[i]; }
  int64_t effective_end(size_t i) const { return effective_end_ns(i); }
  int64_t max_end(size_t i) const { return max_end_ns(i); }

  // First item with max_end_ns > t_ns (n when none): the first that can reach t or later.
  size_t FirstReaching(int64_t t_ns) const;
  // First index in [from, to) whose start is >= t_ns (to when none); galloping from `from`, so cheap for
  // near targets.
  size_t FirstStartingAtOrAfter(size_t from, size_t to, int64_t t_ns) const;
  size_t FirstStartingAtOrAfter(size_t from, int64_t t_ns) const { return FirstStartingAtOrAfter(from, size(), t_ns); }
  // First index in [from, to) whose max end is > t_ns (to when none); galloping from `from`.
  size_t FirstMaxEndAfter(size_t from, size_t to, int64_t t_ns) const;

  // The item under t_ns, else the nearest one within `tolerance_ns`; -1 when none.
  int64_t FindNear(int64_t t_ns, int64_t tolerance_ns) const;
  // Bytes held (for memory accounting).
  size_t bytes() const;

 private:
  std::vector<int64_t> start_ns_;
  std::vector<int64_t> end_ns_;
  std::vector<int64_t> max_end_ns_;  // empty when effective ends are already sorted
  std::vector<int32_t> label_;
  std::vector<uint32_t> ref_;
  LodLevels levels_;
};

}  // namespace nimble::gui
