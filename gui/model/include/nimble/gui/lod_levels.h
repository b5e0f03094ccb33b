// The precomputed level-of-detail summary of one row: level k joins consecutive items whose gap is
// shorter than 4^k ns into one span (start, hull end, first item). Spans of a level are disjoint and
// sorted; each level nests in the next. A level is kept only when it has at most half the spans of the
// finer level kept before it, so the summary holds at most as many spans as items (20 bytes each) and
// usually far fewer. Built once by RowItems::Finish(); read-only afterwards.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace nimble::gui {

class RowItems;

class SpanLevel {
 public:
  int64_t threshold_ns = 0;          // gaps shorter than this were joined
  std::vector<int64_t> start_ns;     // of each span
  std::vector<int64_t> end_ns;       // hull (largest effective end of its items)
  std::vector<uint32_t> first_item;  // index of its first item; its items run to the next span's first
  uint32_t item_count = 0;           // items of the row (the end of the last span's items)

  size_t size() const { return start_ns.size(); }
  uint32_t item_end(size_t i) const { return i + 1 < first_item.size() ? first_item[i + 1] : item_count; }
  // Sequence interface shared with RowItems, for the draw-list walk.
  int64_t start(size_t i) const { return start_ns[i]; }
  int64_t effective_end(size_t i) const { return end_ns[i]; }
  int64_t max_end(size_t i) const { return end_ns[i]; }
  size_t FirstStartingAtOrAfter(size_t from, size_t to, int64_t t_ns) const;
  size_t FirstMaxEndAfter(size_t from, size_t to, int64_t t_ns) const;
  // The spans whose items lie in [item_first, item_end): a range of this level.
  std::pair<size_t, size_t> SpansOfItems(uint32_t item_first, uint32_t item_end) const;
};

class LodLevels {
 public:
  // Thresholds 4^1 .. 4^16 ns (4 ns to 4.3 s).
  static constexpr int kMaxLevels = 16;

  void Build(const RowItems& items);
  void Clear() { levels_.clear(); }

  // Finest first.
  std::span<const SpanLevel> levels() const { return levels_; }
  // Index of the coarsest level whose threshold is <= ns_per_px, or -1 when none is.
  int CoarsestWithin(double ns_per_px) const;
  size_t bytes() const;

 private:
  std::vector<SpanLevel> levels_;
};

}  // namespace nimble::gui
