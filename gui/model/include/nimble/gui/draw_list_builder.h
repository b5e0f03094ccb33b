// Level of detail: turns one row's items into the spans to paint at one zoom, merging items too narrow
// to tell apart. Starts from the coarsest precomputed level (lod_levels.h) whose joined gaps are all
// narrower than a pixel and descends only into spans wide enough to hold a wide item. Guarantees, for
// any PixelGrid:
//   - exact coverage: a pixel is covered by some span iff some item intersects it;
//   - every span is a run of consecutive items [first, first + count), runs in order, none skipped;
//   - an item at least max(wide_px, 3) pixels wide in a row of disjoint items is a span of its own;
//   - a row of disjoint items gives at most width + 2 spans, and each step of the walk jumps a whole
//     pixel by galloping search, so 10 million items cost about as much as a thousand.
// Stateless; Build() may run on any thread.
#pragma once

#include <cstdint>
#include <vector>

#include "nimble/gui/row_items.h"
#include "nimble/gui/time_scale.h"

namespace nimble::gui {

struct DrawSpan {
  int64_t start_ns = 0;  // start of the first item
  int64_t end_ns = 0;    // largest effective end of the items it covers
  uint32_t first = 0;    // index of its first item in the row
  uint32_t count = 0;    // items it stands for; 1: the item itself
  bool merged() const { return count > 1; }
};

struct DrawListOptions {
  int32_t wide_px = 3;  // items at least this wide are painted on their own (with a label where it fits)
};

class DrawListBuilder {
 public:
  explicit DrawListBuilder(DrawListOptions options = {}) : options_(options) {}

  // Replaces `out` with the spans of `row` that reach pixels [0, grid.width_px), in item order. Times of
  // `grid` are the row's own (the caller shifts the grid, not the items).
  void Build(const RowItems& row, const PixelGrid& grid, std::vector<DrawSpan>& out) const;

  // Pixels [first, last] that a span covers on `grid` (unclipped).
  static int64_t FirstPixel(const DrawSpan& span, const PixelGrid& grid) { return grid.PixelOf(span.start_ns); }
  static int64_t LastPixel(const DrawSpan& span, const PixelGrid& grid) { return grid.PixelOf(span.end_ns - 1); }

 private:
  DrawListOptions options_;
};

}  // namespace nimble::gui
