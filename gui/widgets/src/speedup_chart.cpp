#include "nimble/gui/speedup_chart.h"

#include <QPainter>

#include <algorithm>
#include <cmath>

#include "nimble/gui/run_terms.h"
#include "nimble/gui/theme.h"

namespace nimble::gui {
namespace {

constexpr Rgb kMeasuredRgb{0x59, 0xa1, 0x4f};
constexpr Rgb kPredictedRgb{0x6b, 0x9a, 0xc4};

double Ratio(double baseline, double latency) { return baseline > 0 && latency > 0 ? baseline / latency : 0; }

// Bar of `value` (0: none) between x and x + w, on a scale where `top` is `max_value`.
void Bar(QPainter& p, const QRectF& plot, double x, double w, double value, double max_value, const QColor& color,
         bool hatched) {
  if (value <= 0) return;
  const double h = plot.height() * value / max_value;
  const QRectF bar(x, plot.bottom() - h, w, h);
  p.fillRect(bar, hatched ? QColor(color.red(), color.green(), color.blue(), 70) : color);
  if (hatched) {
    p.setPen(QPen(color, 1.5));
    p.drawRect(bar);
  }
  p.setPen(ToQColor(kTextRgb));
  p.drawText(QRectF(x - 10, bar.top() - 16, w + 20, 14), Qt::AlignCenter, QString::number(value, 'f', 2) + "×");
}

}  // namespace

std::vector<Speedup> CollectSpeedups(const LoadedRuns& runs) {
  std::vector<std::pair<RunMode, std::vector<Speedup>>> speedups;
  for (const auto& run : runs) speedups.emplace_back(run->info.mode, run->speedups);
  return CollectModeSpeedups(speedups);
}

std::vector<ModeMemory> CollectModeMemory(const LoadedRuns& runs) {
  std::vector<std::pair<RunMode, std::vector<Metric>>> metrics;
  for (const auto& run : runs) metrics.emplace_back(run->info.mode, run->metrics);
  return CollectModeMemory(metrics);
}

SpeedupChart::SpeedupChart(QWidget* parent) : QWidget(parent) { setMinimumSize(260, 200); }

void SpeedupChart::SetRuns(const LoadedRuns& runs) {
  speedups_ = CollectSpeedups(runs);
  memory_ = CollectModeMemory(runs);
  update();
}

void SpeedupChart::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing, true);
  p.fillRect(rect(), ToQColor(kBackgroundRgb));
  p.setFont(TimelineFont());
  p.setPen(ToQColor(kTextRgb));
  p.drawText(QRect(10, 4, width() - 20, 18), Qt::AlignLeft | Qt::AlignVCenter,
             "Speedup per mode (latency: measured | predicted)");
  if (speedups_.empty()) {
    p.setPen(ToQColor(kDimTextRgb));
    p.drawText(rect().adjusted(10, 24, -10, -10), Qt::AlignCenter | Qt::TextWordWrap,
               "No speedups stored in these runs.\nnimble-prof report and nimble-accelerate store them.");
    return;
  }
  double max_value = 1.0;
  for (const Speedup& s : speedups_) {
    max_value = std::max({max_value, Ratio(s.baseline_ms, s.measured_ms), Ratio(s.baseline_ms, s.predicted_ms)});
  }
  max_value = std::ceil(max_value * 1.2 * 4) / 4;
  // The memory rows take the bottom: a title line and one row per mode.
  const double memory_height = memory_.empty() ? 0.0 : 24.0 + 18.0 * static_cast<double>(memory_.size());
  const QRectF plot(44, 44, width() - 58, height() - 44 - 40 - memory_height);
  if (!memory_.empty()) PaintMemory(p, QRectF(10, height() - memory_height, width() - 20, memory_height));
  // Grid and axis: a line every quarter or half, the 1x line brighter.
  const double step = max_value > 3 ? 1.0 : max_value > 1.5 ? 0.5 : 0.25;
  for (double v = 0; v <= max_value + 1e-9; v += step) {
    const double y = plot.bottom() - plot.height() * v / max_value;
    p.setPen(QPen(ToQColor(std::abs(v - 1) < 1e-9 ? kDimTextRgb : kLaneSeparatorRgb), 1));
    p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
    p.setPen(ToQColor(kDimTextRgb));
    p.drawText(QRectF(0, y - 8, plot.left() - 6, 16), Qt::AlignRight | Qt::AlignVCenter, QString::number(v, 'g', 3) + "×");
  }
  const double group = plot.width() / static_cast<double>(speedups_.size());
  const double bar = std::min(40.0, group * 0.32);
  for (size_t i = 0; i < speedups_.size(); ++i) {
    const Speedup& s = speedups_[i];
    const double centre = plot.left() + group * (static_cast<double>(i) + 0.5);
    Bar(p, plot, centre - bar - 2, bar, Ratio(s.baseline_ms, s.measured_ms), max_value, ToQColor(kMeasuredRgb), false);
    Bar(p, plot, centre + 2, bar, Ratio(s.baseline_ms, s.predicted_ms), max_value, ToQColor(kPredictedRgb), true);
    p.setPen(ToQColor(kTextRgb));
    p.drawText(QRectF(centre - group / 2, plot.bottom() + 4, group, 16), Qt::AlignCenter, QString(RunModeName(s.mode)));
    p.setPen(ToQColor(kDimTextRgb));
    const QString latencies = QString("%1 | %2 ms")
                                  .arg(s.measured_ms > 0 ? QString::number(s.measured_ms, 'f', 3) : "-",
                                       s.predicted_ms > 0 ? QString::number(s.predicted_ms, 'f', 3) : "-");
    p.drawText(QRectF(centre - group / 2, plot.bottom() + 19, group, 16), Qt::AlignCenter, latencies);
  }
  // Legend.
  const QRectF legend(plot.left(), 24, plot.width(), 16);
  p.fillRect(QRectF(legend.left(), legend.top() + 3, 10, 10), ToQColor(kMeasuredRgb));
  p.setPen(ToQColor(kTextRgb));
  p.drawText(QRectF(legend.left() + 14, legend.top(), 120, 16), Qt::AlignLeft | Qt::AlignVCenter, "measured");
  p.fillRect(QRectF(legend.left() + 90, legend.top() + 3, 10, 10), ToQColor(kPredictedRgb, 70));
  p.setPen(QPen(ToQColor(kPredictedRgb), 1.5));
  p.drawRect(QRectF(legend.left() + 90, legend.top() + 3, 10, 10));
  p.setPen(ToQColor(kTextRgb));
  p.drawText(QRectF(legend.left() + 104, legend.top(), 200, 16), Qt::AlignLeft | Qt::AlignVCenter,
             "predicted");
}

// Horizontal bars of peak reserved MiB per mode on one scale, peak allocated as a line inside each,
// the numbers beside.
void SpeedupChart::PaintMemory(QPainter& p, const QRectF& area) const {
  p.setPen(ToQColor(kTextRgb));
  p.drawText(QRectF(area.left(), area.top(), area.width(), 18), Qt::AlignLeft | Qt::AlignVCenter,
             "GPU memory above weights and inputs (peak reserved | allocated, graph pool)");
  double max_bytes = 1;
  for (const ModeMemory& m : memory_) max_bytes = std::max(max_bytes, static_cast<double>(m.peak_reserved_bytes));
  const double label_w = 80, text_w = 190;
  const double bar_w = std::max(20.0, area.width() - label_w - text_w - 12);
  auto mib = [](int64_t bytes) { return QString::number(static_cast<double>(bytes) / (1 << 20), 'f', 1); };
  for (size_t i = 0; i < memory_.size(); ++i) {
    const ModeMemory& m = memory_[i];
    const double y = area.top() + 22 + 18 * static_cast<double>(i);
    p.setPen(ToQColor(kTextRgb));
    p.drawText(QRectF(area.left(), y, label_w, 14), Qt::AlignLeft | Qt::AlignVCenter, QString(RunModeName(m.mode)));
    const double x = area.left() + label_w;
    const double w = bar_w * static_cast<double>(m.peak_reserved_bytes) / max_bytes;
    p.fillRect(QRectF(x, y + 2, w, 10), ToQColor(kPredictedRgb, 110));
    const double a = bar_w * static_cast<double>(m.peak_allocated_bytes) / max_bytes;
    p.fillRect(QRectF(x, y + 5, a, 4), ToQColor(kMeasuredRgb));
    p.setPen(ToQColor(kDimTextRgb));
    QString text = mib(m.peak_reserved_bytes) + " | " + mib(m.peak_allocated_bytes) + " MiB";
    if (m.graph_pool_bytes >= 0) text += ", pool " + mib(m.graph_pool_bytes);
    p.drawText(QRectF(x + bar_w + 6, y, text_w, 14), Qt::AlignLeft | Qt::AlignVCenter, text);
  }
}

}  // namespace nimble::gui
