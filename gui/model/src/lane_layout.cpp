#include "nimble/gui/lane_layout.h"

#include <algorithm>

namespace nimble::gui {
namespace {

int32_t RowHeight(LaneKind kind, const LayoutHeights& h) {
  switch (kind) {
    case LaneKind::kDeviceIdle: return h.idle_px;
    case LaneKind::kStream: return h.gpu_row_px;
    case LaneKind::kHostRanges:
    case LaneKind::kHostApi: return h.host_row_px;
  }
  return h.host_row_px;
}

}  // namespace

void LaneLayout::Build(std::span<const RunTimeline* const> runs, bool run_headers, const LayoutHeights& heights) {
  rows_.clear();
  int32_t y = 0;
  for (size_t r = 0; r < runs.size(); ++r) {
    const auto run = static_cast<int32_t>(r);
    if (run_headers) {
      rows_.push_back({true, run, -1, -1, y, heights.header_px, false});
      y += heights.header_px;
    }
    const std::vector<Lane>& lanes = runs[r]->lanes;
    for (size_t l = 0; l < lanes.size(); ++l) {
      // A lane with no rows still gets one, so that every lane of the run shows.
      const size_t row_count = std::max<size_t>(lanes[l].rows.size(), 1);
      const int32_t h = RowHeight(lanes[l].kind, heights);
      for (size_t i = 0; i < row_count; ++i) {
        rows_.push_back({false, run, static_cast<int32_t>(l), static_cast<int32_t>(i), y, h, i + 1 == row_count});
        y += h;
      }
    }
  }
  height_px_ = y;
}

const LayoutRow* LaneLayout::RowAt(int32_t y_px) const {
  const auto it = std::upper_bound(rows_.begin(), rows_.end(), y_px,
                                   [](int32_t y, const LayoutRow& row) { return y < row.y_px; });
  if (it == rows_.begin()) return nullptr;
  const LayoutRow& row = *(it - 1);
  return y_px < row.y_px + row.height_px ? &row : nullptr;
}

const LayoutRow* LaneLayout::Find(int32_t run, int32_t lane, int32_t row) const {
  for (const LayoutRow& r : rows_) {
    if (!r.header && r.run == run && r.lane == lane && r.row == row) return &r;
  }
  return nullptr;
}

std::pair<size_t, size_t> LaneLayout::Visible(int32_t y0_px, int32_t y1_px) const {
  const auto first = std::upper_bound(rows_.begin(), rows_.end(), y0_px,
                                      [](int32_t y, const LayoutRow& row) { return y < row.y_px + row.height_px; });
  const auto last = std::lower_bound(first, rows_.end(), y1_px,
                                     [](const LayoutRow& row, int32_t y) { return row.y_px < y; });
  return {static_cast<size_t>(first - rows_.begin()), static_cast<size_t>(last - rows_.begin())};
}

size_t LaneLayout::lane_count() const {
  return static_cast<size_t>(std::count_if(rows_.begin(), rows_.end(), [](const LayoutRow& r) { return r.last_of_lane; }));
}

}  // namespace nimble::gui
