#include "nimble/gui/time_scale.h"

#include <algorithm>
#include <cmath>

namespace nimble::gui {

int64_t PixelGrid::PixelOf(int64_t t_ns) const {
  return static_cast<int64_t>(std::floor((static_cast<double>(t_ns) - left_ns) / ns_per_px));
}

int64_t PixelGrid::PixelStartNs(int64_t p) const {
  // The closed form can be off by one ns either way after rounding; step until PixelOf agrees, so the
  // two functions partition time exactly.
  auto t = static_cast<int64_t>(std::ceil(left_ns + static_cast<double>(p) * ns_per_px));
  while (PixelOf(t - 1) >= p) --t;
  while (PixelOf(t) < p) ++t;
  return t;
}

TimeScale::TimeScale(double left_ns, double ns_per_px, double width_px)
    : left_ns_(left_ns), ns_per_px_(std::max(ns_per_px, kMinNsPerPx)), width_px_(std::max(width_px, 1.0)) {}

PixelGrid TimeScale::Grid() const {
  return {left_ns_, ns_per_px_, static_cast<int32_t>(std::lround(width_px_))};
}

void TimeScale::SetWidth(double width_px) { width_px_ = std::max(width_px, 1.0); }

void TimeScale::Fit(double start_ns, double end_ns) {
  const double span = std::max(end_ns - start_ns, 1.0);
  left_ns_ = start_ns;
  ns_per_px_ = std::max(span / width_px_, kMinNsPerPx);
}

void TimeScale::ZoomAbout(double anchor_px, double factor) {
  if (!(factor > 0)) return;
  const double anchor_ns = ToNs(anchor_px);
  ns_per_px_ = std::max(ns_per_px_ * factor, kMinNsPerPx);
  left_ns_ = anchor_ns - anchor_px * ns_per_px_;
}

void TimeScale::Pan(double dx_px) { left_ns_ += dx_px * ns_per_px_; }

void TimeScale::Clamp(double bounds_start_ns, double bounds_end_ns) {
  const double bounds_span = std::max(bounds_end_ns - bounds_start_ns, 1.0);
  const double max_ns_per_px = std::max(bounds_span * 2 / width_px_, kMinNsPerPx);
  if (ns_per_px_ > max_ns_per_px) {
    // Zooming out past the limit keeps the centre where it was.
    const double centre = left_ns_ + span_ns() / 2;
    ns_per_px_ = max_ns_per_px;
    left_ns_ = centre - span_ns() / 2;
  }
  ns_per_px_ = std::max(ns_per_px_, kMinNsPerPx);
  const double half = span_ns() / 2;
  left_ns_ = std::clamp(left_ns_, bounds_start_ns - half, bounds_end_ns - half);
}

}  // namespace nimble::gui
