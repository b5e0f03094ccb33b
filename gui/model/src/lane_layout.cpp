#include "nimble/gui/lane_layout.h"

#include <algorithm>
#include <cmath>

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

// Rows of each height class, as Build lays them out.
struct RowCounts {
  int64_t headers = 0, idle = 0, stream = 0, host = 0;
};

RowCounts CountRows(std::span<const RunTimeline* const> runs, bool run_headers) {
  RowCounts c;
  for (const RunTimeline* run : runs) {
    c.headers += run_headers ? 1 : 0;
    for (const Lane& lane : run->lanes) {
      const auto rows = static_cast<int64_t>(std::max<size_t>(lane.rows.size(), 1));
      switch (lane.kind) {
        case LaneKind::kDeviceIdle: c.idle += rows; break;
        case LaneKind::kStream: c.stream += rows; break;
        case LaneKind::kHostRanges:
        case LaneKind::kHostApi: c.host += rows; break;
      }
    }
  }
  return c;
}

int64_t Total(const RowCounts& c, const LayoutHeights& h) {
  return c.headers * h.header_px + c.idle * h.idle_px + c.stream * h.gpu_row_px + c.host * h.host_row_px;
}

int32_t Grown(int32_t base_px, double factor, double max_factor) {
  return static_cast<int32_t>(std::lround(base_px * std::min(factor, max_factor)));
}

// How far each kind of row grows. Stream rows stop at 2x: a kernel's name and duration fit in two lines
// there, and taller rows only cost paint time (gui_paint_bench, 10 M kernels at 2130x1000, repaint median
// against the compact heights: +0.8 ms with 3x rows, +0.5 to +0.7 ms with 2x and the busy chart).
constexpr double kStreamGrowth = 2.0;  // 44 px
constexpr double kIdleGrowth = 6.0;    // 84 px: the busy chart over the gap strip
constexpr double kHostGrowth = 1.5;    // host rows are context, not the subject
constexpr double kMaxGrowth = std::max({kStreamGrowth, kIdleGrowth, kHostGrowth});

LayoutHeights GrownBy(const LayoutHeights& base, double factor) {
  LayoutHeights h = base;
  h.idle_px = Grown(base.idle_px, factor, kIdleGrowth);
  h.gpu_row_px = Grown(base.gpu_row_px, factor, kStreamGrowth);
  h.host_row_px = Grown(base.host_row_px, factor, kHostGrowth);
  return h;
}

}  // namespace

LayoutHeights FitHeights(std::span<const RunTimeline* const> runs, bool run_headers, int32_t available_px,
                         const LayoutHeights& base) {
  const RowCounts counts = CountRows(runs, run_headers);
  if (Total(counts, base) >= available_px) return base;
  // The total grows with the factor, so the largest factor that fits is found by bisection.
  double lo = 1;
  double hi = kMaxGrowth;
  if (Total(counts, GrownBy(base, hi)) <= available_px) return GrownBy(base, hi);
  for (int i = 0; i < 30; ++i) {
    const double mid = (lo + hi) / 2;
    (Total(counts, GrownBy(base, mid)) <= available_px ? lo : hi) = mid;
  }
  return GrownBy(base, lo);
}

int32_t LaidOutHeight(std::span<const RunTimeline* const> runs, bool run_headers, const LayoutHeights& heights) {
  return static_cast<int32_t>(Total(CountRows(runs, run_headers), heights));
}

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
