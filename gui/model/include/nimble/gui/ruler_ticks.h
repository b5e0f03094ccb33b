// The time ruler: tick positions at a 1-2-5 step chosen so that labels never crowd, labelled in the
// unit that suits the step (ns, µs, ms, s), label boxes that stay inside the ruler, and duration
// formatting for tables and the details pane. Pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "nimble/gui/time_scale.h"

namespace nimble::gui {

struct Tick {
  double x_px = 0;
  int64_t t_ns = 0;     // view time of the tick
  bool major = false;   // labelled
  std::string label;    // empty for minor ticks
};

struct RulerTicks {
  int64_t major_step_ns = 0;
  std::vector<Tick> ticks;  // left to right, majors and the minors between them
};

// Major ticks at least `min_label_spacing_px` apart, four minor ticks between majors when they fit.
// Far from zero at a fine step, the first major is labelled in full and the others as "+offset".
RulerTicks ComputeTicks(const TimeScale& scale, double min_label_spacing_px = 90);

// Where a major tick's label is drawn, in lanes-area x.
struct PlacedLabel {
  size_t tick = 0;  // index in RulerTicks::ticks
  double left_px = 0;
  double width_px = 0;
};

// Boxes for the major ticks' labels: `gap_px` right of the tick, or left of it where the right would pass
// `width_px` (the last label, near the end of the ruler); a label that still does not fit, or would come
// within `gap_px` of the previous one, is left out (its tick stays). Left to right, never overlapping.
std::vector<PlacedLabel> PlaceLabels(const RulerTicks& ticks, double width_px,
                                     const std::function<double(const std::string&)>& text_width_px,
                                     double gap_px = 3);

// The smallest 1, 2 or 5 times a power of ten that is >= `at_least_ns` (and >= 1).
int64_t NiceStepNs(double at_least_ns);

// A time in the unit that suits `magnitude_ns` (the largest time on the ruler, so that all labels share
// a unit) with just enough decimals to tell ticks `step_ns` apart: "1.5 ms", "-20 µs", "3.2005 s".
std::string FormatTick(int64_t t_ns, int64_t step_ns, double magnitude_ns);

// A duration with three significant digits and its unit: "812 ns", "12.3 µs", "1.50 ms", "2.41 s".
std::string FormatDuration(double ns);

}  // namespace nimble::gui
