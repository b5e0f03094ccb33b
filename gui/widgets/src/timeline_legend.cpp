#include "nimble/gui/timeline_legend.h"

#include <QPainter>

#include "nimble/gui/theme.h"

namespace nimble::gui {
namespace {

constexpr int kHeightPx = 26;
constexpr int kSwatchPx = 12;
constexpr int kMarginPx = 10;
constexpr int kMinSummaryPx = 80;  // narrower, the summary is left out rather than cut to a stub

struct Entry {
  QColor color;
  QString label;
  bool band = false;  // a thin band (critical path, launch link) rather than a square swatch
  int gap_before = 0;
};

std::vector<Entry> Entries() {
  std::vector<Entry> out;
  for (auto cause : {analysis::GapCause::kHostLaunchLate, analysis::GapCause::kSynchronization,
                     analysis::GapCause::kMemoryCopy, analysis::GapCause::kOther}) {
    out.push_back({ToQColor(GapCauseColor(cause)), QString::fromUtf8(GapCauseLabel(cause).data()), false, 0});
  }
  out.push_back({ToQColor(kCriticalPathRgb), "critical path", true, 8});
  out.push_back({ToQColor(kLinkRgb), "launch → kernel", true, 0});
  out.push_back({ToQColor(Mix(kItemPalette[0], kBackgroundRgb, 0.3)), "merged sub-pixel kernels (darker)", false, 0});
  return out;
}

int SwatchWidth(const Entry& e) { return kSwatchPx + (e.band ? 12 : 6); }

}  // namespace

const QString TimelineLegend::kCaption = "Idle gap cause:";

TimelineLegend::TimelineLegend(QWidget* parent) : QWidget(parent) { setFixedHeight(kHeightPx); }

void TimelineLegend::SetSummary(const QString& summary) {
  summary_ = summary;
  update();
}

QSize TimelineLegend::sizeHint() const { return {800, kHeightPx}; }

std::vector<TimelineLegend::Placed> TimelineLegend::Layout(const QFontMetrics& metrics) const {
  std::vector<Placed> out;
  const int right = width() - kMarginPx;
  int x = kMarginPx;
  const int caption = metrics.horizontalAdvance(kCaption);
  if (x + caption > right) return out;
  out.push_back({QRect(x, 0, caption, kHeightPx), kCaption, -1});
  x += caption + 10;
  // Entries left to right while they fit whole: a key cut at the window's edge would be misread.
  const std::vector<Entry> entries = Entries();
  for (size_t i = 0; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    const int text = metrics.horizontalAdvance(e.label);
    const int start = x + e.gap_before;
    if (start + SwatchWidth(e) + text > right) break;
    out.push_back({QRect(start + SwatchWidth(e), 0, text, kHeightPx), e.label, static_cast<int>(i)});
    x = start + SwatchWidth(e) + text + 16;
  }
  const int room = right - x;
  if (room >= kMinSummaryPx && !summary_.isEmpty()) {
    out.push_back({QRect(x, 0, room, kHeightPx), metrics.elidedText(summary_, Qt::ElideRight, room), -1});
  }
  return out;
}

void TimelineLegend::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), ToQColor(kLabelColumnRgb));
  p.fillRect(QRect(0, 0, width(), 1), ToQColor(kLaneSeparatorRgb));
  p.setFont(TimelineFont());
  const std::vector<Entry> entries = Entries();
  const int mid = kHeightPx / 2;
  for (const Placed& placed : Layout(p.fontMetrics())) {
    const bool entry = placed.entry >= 0;
    if (entry) {
      const Entry& e = entries[static_cast<size_t>(placed.entry)];
      const int x = placed.rect.left() - SwatchWidth(e);
      if (e.band) p.fillRect(QRect(x, mid + 2, kSwatchPx + 6, 3), e.color);
      else p.fillRect(QRect(x, mid - kSwatchPx / 2, kSwatchPx, kSwatchPx), e.color);
    }
    p.setPen(ToQColor(entry ? kTextRgb : kDimTextRgb));
    const bool summary = !entry && placed.text != kCaption;
    p.drawText(placed.rect, Qt::AlignVCenter | (summary ? Qt::AlignRight : Qt::AlignLeft), placed.text);
  }
}

}  // namespace nimble::gui
