// The timeline's time <-> pixel mapping: which view time (ns since the view's zero) sits at x = 0, and
// how many ns one pixel spans. Times are int64 ns; the left edge is a double so zooming about the cursor
// keeps sub-ns precision. Invariant after Clamp(): min_ns_per_px <= ns_per_px, the view stays within
// the bounds where they allow it. A plain value; no threading concerns.
#pragma once

#include <cstdint>

namespace nimble::gui {

// The pixel grid a draw list is built for: pixel p covers view times [PixelStartNs(p), PixelStartNs(p+1)).
// PixelOf and PixelStartNs agree exactly: PixelOf(t) >= p  <=>  t >= PixelStartNs(p).
struct PixelGrid {
  double left_ns = 0;       // view time at the left edge of pixel 0
  double ns_per_px = 1;     // > 0
  int32_t width_px = 0;

  int64_t PixelOf(int64_t t_ns) const;
  // The smallest integer time whose pixel is >= p.
  int64_t PixelStartNs(int64_t p) const;
};

class TimeScale {
 public:
  static constexpr double kMinNsPerPx = 1.0 / 64;  // 64 px per ns: deeper zoom shows nothing new

  TimeScale() = default;
  TimeScale(double left_ns, double ns_per_px, double width_px);

  double left_ns() const { return left_ns_; }
  double ns_per_px() const { return ns_per_px_; }
  double width_px() const { return width_px_; }
  double right_ns() const { return left_ns_ + ns_per_px_ * width_px_; }
  double span_ns() const { return ns_per_px_ * width_px_; }

  double ToPx(double t_ns) const { return (t_ns - left_ns_) / ns_per_px_; }
  double ToNs(double x_px) const { return left_ns_ + x_px * ns_per_px_; }
  PixelGrid Grid() const;

  // Keeps the time under the left edge; a width of at least one pixel.
  void SetWidth(double width_px);
  // Shows [start_ns, end_ns) across the width (an empty range becomes one ns).
  void Fit(double start_ns, double end_ns);
  // Multiplies the visible span by `factor` (< 1 zooms in), keeping the time under `anchor_px` in place.
  void ZoomAbout(double anchor_px, double factor);
  // Moves the view right by `dx_px` pixels (the content moves left).
  void Pan(double dx_px);

  // Keeps the zoom within [kMinNsPerPx, twice the bounds' span / width] and the view's centre over the
  // bounds, so that panning never loses the data while an asked-for range is shown as asked.
  void Clamp(double bounds_start_ns, double bounds_end_ns);

  friend bool operator==(const TimeScale&, const TimeScale&) = default;

 private:
  double left_ns_ = 0;
  double ns_per_px_ = 1;
  double width_px_ = 1;
};

}  // namespace nimble::gui
