#include "nimble/gui/ruler_ticks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>

namespace nimble::gui {
namespace {

struct Unit {
  int64_t ns;
  const char* name;
};

constexpr Unit kUnits[] = {{1'000'000'000, "s"}, {1'000'000, "ms"}, {1'000, "µs"}, {1, "ns"}};

const Unit& UnitFor(double magnitude_ns) {
  for (const Unit& u : kUnits) {
    if (magnitude_ns >= static_cast<double>(u.ns)) return u;
  }
  return kUnits[3];
}

std::string Printf(const char* format, double value, const char* unit) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), format, value, unit);
  return buf;
}

}  // namespace

int64_t NiceStepNs(double at_least_ns) {
  int64_t power = 1;
  while (true) {
    for (int64_t m : {1, 2, 5}) {
      if (static_cast<double>(m * power) >= at_least_ns) return m * power;
    }
    if (power > INT64_MAX / 100) return power * 10;
    power *= 10;
  }
}

std::string FormatTick(int64_t t_ns, int64_t step_ns, double magnitude_ns) {
  if (t_ns == 0) return "0";
  const Unit& unit = UnitFor(std::max(std::fabs(magnitude_ns), static_cast<double>(step_ns)));
  // Decimals needed so that consecutive ticks differ: 0 when the step is a whole number of units.
  int decimals = 0;
  for (int64_t s = step_ns; s % unit.ns != 0 && decimals < 9; s *= 10) ++decimals;
  char format[16];
  std::snprintf(format, sizeof(format), "%%.%df %%s", decimals);
  return Printf(format, static_cast<double>(t_ns) / static_cast<double>(unit.ns), unit.name);
}

std::string FormatDuration(double ns) {
  const double magnitude = std::fabs(ns);
  if (magnitude < 1) return ns == 0 ? "0 ns" : Printf("%.2f %s", ns, "ns");
  const Unit& unit = UnitFor(magnitude);
  const double value = ns / static_cast<double>(unit.ns);
  const double abs_value = std::fabs(value);
  if (unit.ns == 1) return Printf("%.0f %s", value, unit.name);
  return Printf(abs_value >= 100 ? "%.0f %s" : abs_value >= 10 ? "%.1f %s" : "%.2f %s", value, unit.name);
}

RulerTicks ComputeTicks(const TimeScale& scale, double min_label_spacing_px) {
  RulerTicks out;
  out.major_step_ns = NiceStepNs(min_label_spacing_px * scale.ns_per_px());
  const int64_t step = out.major_step_ns;
  // Minor ticks: a fifth of the major step where that is still a whole number of ns and 8 px apart.
  const int64_t minor = step % 5 == 0 && static_cast<double>(step / 5) / scale.ns_per_px() >= 8 ? step / 5 : step;
  const auto first = static_cast<int64_t>(std::floor(scale.left_ns() / static_cast<double>(minor)));
  const auto last = static_cast<int64_t>(std::ceil(scale.right_ns() / static_cast<double>(minor)));
  const double magnitude = std::max(std::fabs(scale.left_ns()), std::fabs(scale.right_ns()));
  // Far from zero at a fine step ("3.00005 s", "3.00010 s"...), label the first major tick in full and
  // the others by their offset from it ("+50 µs"), which reads at a glance.
  const bool relative = magnitude > static_cast<double>(step) * 1000;
  std::optional<int64_t> anchor_ns;
  for (int64_t k = first; k <= last; ++k) {
    Tick tick;
    tick.t_ns = k * minor;
    tick.x_px = scale.ToPx(static_cast<double>(tick.t_ns));
    if (tick.x_px < -0.5 || tick.x_px > scale.width_px() + 0.5) continue;
    tick.major = tick.t_ns % step == 0;
    if (tick.major && relative && anchor_ns) {
      tick.label = FormatTick(tick.t_ns - *anchor_ns, step, scale.span_ns());
      tick.label.insert(tick.label.begin(), '+');
    } else if (tick.major) {
      tick.label = FormatTick(tick.t_ns, step, magnitude);
      anchor_ns = tick.t_ns;
    }
    out.ticks.push_back(std::move(tick));
  }
  return out;
}

std::vector<PlacedLabel> PlaceLabels(const RulerTicks& ticks, double width_px,
                                     const std::function<double(const std::string&)>& text_width_px, double gap_px) {
  std::vector<PlacedLabel> out;
  double free_from_px = 0;  // where the next label may start
  for (size_t i = 0; i < ticks.ticks.size(); ++i) {
    const Tick& tick = ticks.ticks[i];
    if (!tick.major || tick.label.empty()) continue;
    const double w = text_width_px(tick.label);
    double left = std::max(tick.x_px + gap_px, 0.0);
    if (left + w > width_px) left = tick.x_px - gap_px - w;
    if (left < free_from_px || left + w > width_px) continue;
    out.push_back({i, left, w});
    free_from_px = left + w + gap_px;
  }
  return out;
}

}  // namespace nimble::gui
