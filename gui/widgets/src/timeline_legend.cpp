#include "nimble/gui/timeline_legend.h"

#include <QPainter>

#include "nimble/gui/theme.h"

namespace nimble::gui {
namespace {

constexpr int kHeightPx = 26;
constexpr int kSwatchPx = 12;

// Draws a swatch and its label at x; returns the x after them.
int Entry(QPainter& p, int x, const QColor& color, const QString& label, bool band = false) {
  const int mid = kHeightPx / 2;
  if (band) p.fillRect(QRect(x, mid + 2, kSwatchPx + 6, 3), color);
  else p.fillRect(QRect(x, mid - kSwatchPx / 2, kSwatchPx, kSwatchPx), color);
  x += kSwatchPx + (band ? 12 : 6);
  p.setPen(ToQColor(kTextRgb));
  p.drawText(QRect(x, 0, 400, kHeightPx), Qt::AlignVCenter | Qt::AlignLeft, label);
  return x + p.fontMetrics().horizontalAdvance(label) + 16;
}

}  // namespace

TimelineLegend::TimelineLegend(QWidget* parent) : QWidget(parent) { setFixedHeight(kHeightPx); }

void TimelineLegend::SetSummary(const QString& summary) {
  summary_ = summary;
  update();
}

QSize TimelineLegend::sizeHint() const { return {800, kHeightPx}; }

void TimelineLegend::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), ToQColor(kLabelColumnRgb));
  p.fillRect(QRect(0, 0, width(), 1), ToQColor(kLaneSeparatorRgb));
  p.setFont(TimelineFont());
  int x = 10;
  p.setPen(ToQColor(kDimTextRgb));
  p.drawText(QRect(x, 0, 120, kHeightPx), Qt::AlignVCenter | Qt::AlignLeft, "Idle gap cause:");
  x += p.fontMetrics().horizontalAdvance("Idle gap cause:") + 10;
  for (auto cause : {analysis::GapCause::kHostLaunchLate, analysis::GapCause::kSynchronization,
                     analysis::GapCause::kMemoryCopy, analysis::GapCause::kOther}) {
    x = Entry(p, x, ToQColor(GapCauseColor(cause)), QString::fromUtf8(GapCauseLabel(cause).data()));
  }
  x = Entry(p, x + 8, ToQColor(kCriticalPathRgb), "critical path", true);
  x = Entry(p, x, ToQColor(kLinkRgb), "launch → kernel", true);
  x = Entry(p, x, ToQColor(Mix(kItemPalette[0], kBackgroundRgb, 0.3)), "merged sub-pixel kernels (darker)");
  const int room = width() - x - 10;
  if (room < 80) return;  // no room for a readable summary
  p.setPen(ToQColor(kDimTextRgb));
  p.drawText(QRect(x, 0, room, kHeightPx), Qt::AlignVCenter | Qt::AlignRight,
             p.fontMetrics().elidedText(summary_, Qt::ElideRight, room));
}

}  // namespace nimble::gui
