#include "nimble/gui/busy_profile.h"

#include <algorithm>
#include <ranges>

namespace nimble::gui {

BusyProfile::BusyProfile(const RowItems& gaps, int64_t span_start_ns, int64_t span_end_ns)
    : span_start_ns_(span_start_ns), span_end_ns_(span_end_ns) {
  idle_before_.reserve(gaps.size() + 1);
  int64_t total = 0;
  idle_before_.push_back(0);
  for (size_t i = 0; i < gaps.size(); ++i) {
    total += gaps.end_ns(i) - gaps.start_ns(i);
    idle_before_.push_back(total);
  }
}

int64_t BusyProfile::IdleNs(const RowItems& gaps, int64_t start_ns, int64_t end_ns) const {
  // Gaps are disjoint and sorted, so their ends are sorted too: [first, last) are those that overlap.
  const auto index = std::views::iota(size_t{0}, gaps.size());
  const size_t first = static_cast<size_t>(
      std::ranges::partition_point(index, [&](size_t i) { return gaps.end_ns(i) <= start_ns; }) - index.begin());
  const size_t last = static_cast<size_t>(
      std::ranges::partition_point(index, [&](size_t i) { return gaps.start_ns(i) < end_ns; }) - index.begin());
  if (first >= last) return 0;
  int64_t idle = idle_before_[last] - idle_before_[first];
  idle -= std::max<int64_t>(0, start_ns - gaps.start_ns(first));  // the first gap's part before the range
  idle -= std::max<int64_t>(0, gaps.end_ns(last - 1) - end_ns);   // the last gap's part after it
  return idle;
}

int64_t BusyProfile::BusyNs(const RowItems& gaps, int64_t start_ns, int64_t end_ns) const {
  const int64_t a = std::max(start_ns, span_start_ns_);
  const int64_t b = std::min(end_ns, span_end_ns_);
  if (a >= b) return 0;
  return (b - a) - IdleNs(gaps, a, b);
}

void BusyProfile::Columns(const RowItems& gaps, const PixelGrid& grid, int32_t column_px, std::vector<float>& out) const {
  out.clear();
  column_px = std::max(column_px, 1);
  for (int32_t x = 0; x < grid.width_px; x += column_px) {
    const int64_t a = grid.PixelStartNs(x);
    const int64_t b = grid.PixelStartNs(std::min(x + column_px, grid.width_px));
    out.push_back(b > a ? static_cast<float>(static_cast<double>(BusyNs(gaps, a, b)) / static_cast<double>(b - a)) : 0.f);
  }
}

}  // namespace nimble::gui
