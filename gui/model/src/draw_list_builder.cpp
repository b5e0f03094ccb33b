#include "nimble/gui/draw_list_builder.h"

#include <algorithm>

namespace nimble::gui {
namespace {

// One Build(): walks the coarsest level of detail whose joined gaps are all narrower than a pixel,
// emits its narrow spans as merged runs, and descends into wide spans, level by level down to the
// items, so that wide items are painted on their own and narrow stretches cost one step per pixel.
class Walker {
 public:
  Walker(const RowItems& row, const PixelGrid& grid, int32_t wide_px, std::vector<DrawSpan>& out)
      : row_(row), grid_(grid), wide_px_(wide_px), out_(out),
        view_start_ns_(grid.PixelStartNs(0)), view_end_ns_(grid.PixelStartNs(grid.width_px)) {}

  // Level -1 is the items themselves.
  void Visit(int level, size_t a, size_t b) {
    if (level < 0) {
      Walk(row_, a, b, [](size_t i) { return std::pair<uint32_t, uint32_t>(i, i + 1); },
           [&](size_t i) { EmitSingle(i); });
      return;
    }
    const SpanLevel& spans = row_.levels().levels()[static_cast<size_t>(level)];
    Walk(spans, a, b, [&](size_t i) { return std::pair<uint32_t, uint32_t>(spans.first_item[i], spans.item_end(i)); },
         [&](size_t i) {
           const uint32_t first = spans.first_item[i];
           const uint32_t end = spans.item_end(i);
           if (level == 0) {
             Visit(-1, first, end);
           } else {
             const auto [ca, cb] = row_.levels().levels()[static_cast<size_t>(level - 1)].SpansOfItems(first, end);
             Visit(level - 1, ca, cb);
           }
         });
  }

 private:
  template <typename Seq>
  bool IsWide(const Seq& seq, size_t i) const {
    return grid_.PixelOf(seq.effective_end(i) - 1) - grid_.PixelOf(seq.start(i)) + 1 >= wide_px_;
  }

  template <typename Seq, typename ItemsOf, typename OnWide>
  void Walk(const Seq& seq, size_t a, size_t b, ItemsOf items_of, OnWide on_wide) {
    size_t i = seq.FirstMaxEndAfter(a, b, view_start_ns_);
    while (i < b && seq.start(i) < view_end_ns_) {
      if (IsWide(seq, i)) {
        on_wide(i);
        ++i;
        continue;
      }
      i = EmitRun(seq, i, b, items_of);
    }
  }

  // A run grows while the next elements start in its last pixel or the one after (no empty pixel
  // between, so joining them changes no pixel's coverage). Each step jumps over every element starting
  // before that limit at once: those ending within it join; the first reaching beyond joins if narrow
  // and ends the run if wide (the caller then paints or descends into it). A step that does not end
  // the run moves its last pixel right, so a run costs O(its pixels x log n).
  template <typename Seq, typename ItemsOf>
  size_t EmitRun(const Seq& seq, size_t first, size_t b, ItemsOf items_of) {
    int64_t run_end_ns = seq.effective_end(first);
    size_t i = first + 1;
    while (i < b) {
      const int64_t last_px = grid_.PixelOf(run_end_ns - 1);
      if (last_px >= grid_.width_px) break;  // already past the right edge
      const int64_t limit_ns = grid_.PixelStartNs(last_px + 2);
      const size_t j = seq.FirstStartingAtOrAfter(i, b, limit_ns);
      if (j == i) break;  // the next element leaves an empty pixel
      const size_t k = seq.FirstMaxEndAfter(i, j, limit_ns);
      if (k > i) {
        run_end_ns = std::max(run_end_ns, seq.max_end(k - 1));
        i = k;
      }
      if (k < j) {
        if (IsWide(seq, k)) break;
        run_end_ns = std::max(run_end_ns, seq.effective_end(k));
        i = k + 1;
      }
    }
    EmitRunSpan(seq.start(first), run_end_ns, items_of(first).first, items_of(i - 1).second);
    return i;
  }

  void EmitSingle(size_t i) {
    out_.push_back({row_.start_ns(i), row_.effective_end_ns(i), static_cast<uint32_t>(i), 1});
    last_is_run_ = false;
  }

  // Joins a run to the previous one when no empty pixel lies between (they meet across levels).
  void EmitRunSpan(int64_t start_ns, int64_t end_ns, uint32_t first_item, uint32_t item_end) {
    if (last_is_run_ && !out_.empty()) {
      DrawSpan& back = out_.back();
      if (start_ns < grid_.PixelStartNs(grid_.PixelOf(back.end_ns - 1) + 2)) {
        back.end_ns = std::max(back.end_ns, end_ns);
        back.count = item_end - back.first;
        return;
      }
    }
    out_.push_back({start_ns, end_ns, first_item, item_end - first_item});
    last_is_run_ = true;
  }

  const RowItems& row_;
  const PixelGrid& grid_;
  const int32_t wide_px_;
  std::vector<DrawSpan>& out_;
  const int64_t view_start_ns_;
  const int64_t view_end_ns_;
  bool last_is_run_ = false;
};

}  // namespace

void DrawListBuilder::Build(const RowItems& row, const PixelGrid& grid, std::vector<DrawSpan>& out) const {
  out.clear();
  if (row.empty() || grid.width_px <= 0 || !(grid.ns_per_px > 0)) return;
  Walker walker(row, grid, options_.wide_px, out);
  const int level = row.levels().CoarsestWithin(grid.ns_per_px);
  const size_t count = level < 0 ? row.size() : row.levels().levels()[static_cast<size_t>(level)].size();
  walker.Visit(level, 0, count);
}

}  // namespace nimble::gui
