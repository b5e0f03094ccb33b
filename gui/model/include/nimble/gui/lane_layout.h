// Vertical layout of the timeline: for one or more runs stacked (compare mode), a header per run and
// then every row of every lane, top to bottom, with its height. Content coordinates (y = 0 is the top
// of the first run); the view scrolls over them. Rows are contiguous and sorted by y, so finding the
// row under the cursor is a binary search. Rows grow to fill the view when the lanes are few (FitHeights).
// A plain value; rebuild it when the runs or the view's height change.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "nimble/gui/run_timeline.h"

namespace nimble::gui {

struct LayoutHeights {
  int32_t header_px = 22;   // run header (compare mode)
  int32_t idle_px = 14;     // a device's idle-gap lane
  int32_t gpu_row_px = 22;  // a row of a stream lane
  int32_t host_row_px = 16; // a row of an NVTX or API lane
};

// Heights that fill `available_px` when the lanes need less at `base`: every row grows by one common
// factor, stream rows (the GPU work) up to 2x, a device's idle row up to 6x (its busy chart grows above
// the gap strip), host rows up to 1.5x, run headers not at all; so a few lanes fill the view with tall,
// labelled kernels and the GPU's busy share, while many lanes keep the compact heights. Never below `base`.
LayoutHeights FitHeights(std::span<const RunTimeline* const> runs, bool run_headers, int32_t available_px,
                         const LayoutHeights& base = {});
// The height LaneLayout::Build lays these runs out in, without building it.
int32_t LaidOutHeight(std::span<const RunTimeline* const> runs, bool run_headers, const LayoutHeights& heights);

struct LayoutRow {
  bool header = false;  // a run header rather than a lane row
  int32_t run = 0;
  int32_t lane = -1;    // -1 for a header
  int32_t row = -1;     // row within the lane
  int32_t y_px = 0;
  int32_t height_px = 0;
  bool last_of_lane = false;  // carries the lane's separator line at its bottom
};

class LaneLayout {
 public:
  // Headers only when `run_headers` (more than one run, or asked for).
  void Build(std::span<const RunTimeline* const> runs, bool run_headers, const LayoutHeights& heights = {});

  std::span<const LayoutRow> rows() const { return rows_; }
  int32_t height_px() const { return height_px_; }
  // The row containing content y, or nullptr outside every row.
  const LayoutRow* RowAt(int32_t y_px) const;
  const LayoutRow* Find(int32_t run, int32_t lane, int32_t row) const;
  // Index range [first, last) of the rows that intersect [y0_px, y1_px).
  std::pair<size_t, size_t> Visible(int32_t y0_px, int32_t y1_px) const;
  // Number of lanes laid out (rows with last_of_lane), over all runs.
  size_t lane_count() const;

 private:
  std::vector<LayoutRow> rows_;
  int32_t height_px_ = 0;
};

}  // namespace nimble::gui
