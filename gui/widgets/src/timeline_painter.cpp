#include "nimble/gui/timeline_painter.h"

#include <QFontMetrics>

#include <algorithm>
#include <cmath>

#include "nimble/gui/ruler_ticks.h"
#include "nimble/gui/theme.h"

namespace nimble::gui {
namespace {

// Vertical layout inside a stream row (and an API row on a path through host and GPU): the item box,
// then the critical-path band, then the separator.
constexpr int kBoxTopPx = 2;
constexpr int kBandPx = TimelineGeometry::kBandPx;
constexpr int kMinLabelWidthPx = 46;  // narrower items get no name
constexpr int kBusyColumnPx = 5;      // the busy chart's resolution: finer reads as noise

Rgb ItemRgb(const PaintInput& in, const LoadedRun& run, size_t r, ItemRef ref, int32_t label) {
  const RunColors& colors = (*in.colors)[r];
  switch (ref.kind()) {
    case ItemKind::kKernel: {
      const int32_t op = in.color_by_op ? OpOfItem(run.timeline, ref) : -1;
      if (op >= 0 && static_cast<size_t>(op) < colors.by_op.size()) return colors.by_op[static_cast<size_t>(op)];
      return label >= 0 && static_cast<size_t>(label) < colors.by_label.size() ? colors.by_label[static_cast<size_t>(label)]
                                                                               : kItemPalette[0];
    }
    case ItemKind::kMemcpy: return kMemcpyRgb;
    case ItemKind::kMemset: return kMemsetRgb;
    case ItemKind::kGraphLaunch: return kGraphLaunchRgb;
    case ItemKind::kApiCall: {
      const std::string& name = run.timeline.strings.Get(StringId(label));
      return name.find("Launch") != std::string::npos ? kLaunchCallRgb : kApiCallRgb;
    }
    case ItemKind::kRange:
      return label >= 0 && static_cast<size_t>(label) < colors.by_label.size()
                 ? Mix(colors.by_label[static_cast<size_t>(label)], kRowEvenRgb, 0.35)
                 : kApiCallRgb;
    case ItemKind::kGap: return GapCauseColor(static_cast<analysis::GapCause>(label));
  }
  return kItemPalette[0];
}

// Pixels [first, last] of a span, clipped to the lanes area; empty (first > last) when off screen.
std::pair<int, int> SpanPixels(const DrawSpan& s, const PixelGrid& grid) {
  const int64_t first = std::max<int64_t>(DrawListBuilder::FirstPixel(s, grid), 0);
  const int64_t last = std::min<int64_t>(DrawListBuilder::LastPixel(s, grid), grid.width_px - 1);
  return {static_cast<int>(first), static_cast<int>(last)};
}

}  // namespace

RunColors ResolveColors(const LoadedRun& run) {
  RunColors out;
  for (const std::string& s : run.timeline.strings.strings()) out.by_label.push_back(ColorForName(s));
  if (run.ops) {
    for (const OpRow& op : run.ops->ops) out.by_op.push_back(ColorForName(op.kind));
  }
  return out;
}

PixelGrid TimelinePainter::RunGrid(const PaintInput& in, size_t run) {
  PixelGrid grid = in.scale.Grid();
  grid.left_ns += static_cast<double>((*in.align_ns)[run]);
  grid.width_px = in.geometry.lanes_width();
  return grid;
}

void TimelinePainter::Paint(QPainter& p, const PaintInput& in) {
  idle_cache_.clear();
  p.setRenderHint(QPainter::Antialiasing, false);
  p.fillRect(QRect(QPoint(0, 0), in.geometry.viewport), ToQColor(kBackgroundRgb));
  const int lanes_top = TimelineGeometry::kRulerHeightPx;
  p.save();
  p.setClipRect(QRect(0, lanes_top, in.geometry.viewport.width(), in.geometry.viewport.height() - lanes_top));
  const auto [first, last] = in.layout->Visible(in.geometry.scroll_y_px,
                                                in.geometry.scroll_y_px + in.geometry.viewport.height() - lanes_top);
  for (size_t i = first; i < last; ++i) PaintRow(p, in, in.layout->rows()[i]);
  PaintOverlays(p, in);
  PaintLabelColumn(p, in);
  p.restore();
  PaintRuler(p, in);
}

void TimelinePainter::PaintRow(QPainter& p, const PaintInput& in, const LayoutRow& row) {
  const int y = in.geometry.Y(row.y_px);
  const int width = in.geometry.viewport.width();
  if (row.header) {
    p.fillRect(QRect(0, y, width, row.height_px), ToQColor(kRunHeaderRgb));
    return;
  }
  const LoadedRun& run = *(*in.runs)[static_cast<size_t>(row.run)];
  const Lane& lane = run.timeline.lanes[static_cast<size_t>(row.lane)];
  QRect box(in.geometry.lanes_left(), y, in.geometry.lanes_width(), row.height_px);
  p.fillRect(QRect(0, y, width, row.height_px), ToQColor(row.lane % 2 == 0 ? kRowEvenRgb : kRowOddRgb));
  constexpr int kStrip = TimelineGeometry::kIdleStripPx;
  if (lane.kind == LaneKind::kDeviceIdle && row.height_px >= kStrip + TimelineGeometry::kMinBusyChartPx) {
    PaintBusyChart(p, in, row, QRect(box.left(), y, box.width(), row.height_px - kStrip));
    box = QRect(box.left(), y + row.height_px - kStrip, box.width(), kStrip);
  }
  if (lane.kind == LaneKind::kStream) PaintGapShade(p, in, row, box);
  if (static_cast<size_t>(row.row) < lane.rows.size()) {
    PaintSpans(p, in, row, lane.rows[static_cast<size_t>(row.row)], box);
  }
  if (lane.kind == LaneKind::kStream || !lane.critical.empty()) PaintCritical(p, in, row, box);
  if (row.last_of_lane) p.fillRect(QRect(0, y + row.height_px - 1, width, 1), ToQColor(kLaneSeparatorRgb));
}

void TimelinePainter::PaintSpans(QPainter& p, const PaintInput& in, const LayoutRow& row, const RowItems& items,
                                 const QRect& box) {
  const auto r = static_cast<size_t>(row.run);
  const LoadedRun& run = *(*in.runs)[r];
  const Lane& lane = run.timeline.lanes[static_cast<size_t>(row.lane)];
  const PixelGrid grid = RunGrid(in, r);
  builder_.Build(items, grid, spans_);
  const bool stream = lane.kind == LaneKind::kStream;
  // Stream rows, and API rows that a critical path through host and GPU crosses, keep room for the band.
  const bool banded = stream || !lane.critical.empty();
  const int top = box.top() + kBoxTopPx;
  const int height = box.height() - kBoxTopPx - (banded ? kBandPx + 2 : 2);
  p.setFont(TimelineFont());
  const QFontMetrics metrics(p.font());
  for (const DrawSpan& s : spans_) {
    const auto [first, last] = SpanPixels(s, grid);
    if (first > last) continue;
    const Rgb rgb = ItemRgb(in, run, r, items.ref(s.first), items.label(s.first));
    // Runs of items too narrow to tell apart are drawn darker, in the colour of their first item.
    const QColor fill = s.merged() ? ToQColor(Mix(rgb, kBackgroundRgb, lane.kind == LaneKind::kDeviceIdle ? 0.55 : 0.3))
                                   : ToQColor(rgb);
    const QRect rect(box.left() + first, top, last - first + 1, height);
    p.fillRect(rect, fill);
    if (s.merged() || rect.width() < kMinLabelWidthPx || lane.kind == LaneKind::kDeviceIdle) continue;
    const std::string& name = run.timeline.strings.Get(StringId(items.label(s.first)));
    const QColor text = TextColorOn(fill);
    const QRect inner = rect.adjusted(4, 0, -3, 0);
    p.setPen(text);
    // A row tall enough for two lines says how long the item took under its name.
    if (!stream || height < 2 * metrics.height() + 4) {
      p.drawText(inner, Qt::AlignVCenter | Qt::AlignLeft, metrics.elidedText(QString::fromStdString(name), Qt::ElideRight, inner.width()));
      continue;
    }
    const int mid = rect.top() + rect.height() / 2;
    p.drawText(QRect(inner.left(), mid - metrics.height(), inner.width(), metrics.height()), Qt::AlignBottom | Qt::AlignLeft,
               metrics.elidedText(QString::fromStdString(name), Qt::ElideRight, inner.width()));
    p.setPen(QColor(text.red(), text.green(), text.blue(), 170));
    const double dur = static_cast<double>(items.end_ns(s.first) - items.start_ns(s.first));
    p.drawText(QRect(inner.left(), mid, inner.width(), metrics.height()), Qt::AlignTop | Qt::AlignLeft,
               metrics.elidedText(QString::fromStdString(FormatDuration(dur)), Qt::ElideRight, inner.width()));
  }
}

const std::vector<DrawSpan>& TimelinePainter::IdleSpans(const PaintInput& in, size_t run, DeviceId device) {
  const std::pair<size_t, int32_t> key(run, device.value());
  for (const auto& [k, spans] : idle_cache_) {
    if (k == key) return spans;
  }
  std::vector<DrawSpan> spans;
  const RunTimeline& t = (*in.runs)[run]->timeline;
  const int32_t lane = t.FindLane(LaneKind::kDeviceIdle, device, StreamId(), ThreadId());
  if (lane >= 0) builder_.Build(t.lanes[static_cast<size_t>(lane)].rows[0], RunGrid(in, run), spans);
  idle_cache_.emplace_back(key, std::move(spans));
  return idle_cache_.back().second;
}

// Wide idle gaps tint the device's stream rows in the colour of their cause.
void TimelinePainter::PaintGapShade(QPainter& p, const PaintInput& in, const LayoutRow& row, const QRect& box) {
  const auto r = static_cast<size_t>(row.run);
  const RunTimeline& t = (*in.runs)[r]->timeline;
  const Lane& lane = t.lanes[static_cast<size_t>(row.lane)];
  const int32_t idle_lane = t.FindLane(LaneKind::kDeviceIdle, lane.device, StreamId(), ThreadId());
  if (idle_lane < 0) return;
  const RowItems& gaps = t.lanes[static_cast<size_t>(idle_lane)].rows[0];
  const PixelGrid grid = RunGrid(in, r);
  for (const DrawSpan& s : IdleSpans(in, r, lane.device)) {
    const auto [first, last] = SpanPixels(s, grid);
    if (s.merged() || last - first < 2) continue;
    const Rgb cause = GapCauseColor(static_cast<analysis::GapCause>(gaps.label(s.first)));
    p.fillRect(QRect(box.left() + first, box.top(), last - first + 1, box.height() - 1),
               ToQColor(Mix(cause, row.lane % 2 == 0 ? kRowEvenRgb : kRowOddRgb, 0.82)));
  }
}

void TimelinePainter::PaintCritical(QPainter& p, const PaintInput& in, const LayoutRow& row, const QRect& box) {
  const auto r = static_cast<size_t>(row.run);
  const Lane& lane = (*in.runs)[r]->timeline.lanes[static_cast<size_t>(row.lane)];
  if (static_cast<size_t>(row.row) >= lane.critical.size()) return;
  const PixelGrid grid = RunGrid(in, r);
  builder_.Build(lane.critical[static_cast<size_t>(row.row)], grid, spans_);
  const int band_top = box.top() + TimelineGeometry::BandTop(box.height());
  for (const DrawSpan& s : spans_) {
    const auto [first, last] = SpanPixels(s, grid);
    if (first <= last) p.fillRect(QRect(box.left() + first, band_top, last - first + 1, kBandPx), ToQColor(kCriticalPathRgb));
  }
}

const DeviceIdleSummary* FindDevice(const LoadedRun& run, DeviceId device) {
  for (const DeviceIdleSummary& d : run.devices) {
    if (d.device == device) return &d;
  }
  return nullptr;
}

// The share of each few pixels the device was busy, as columns rising from the gap strip, with guides
// at half and full.
void TimelinePainter::PaintBusyChart(QPainter& p, const PaintInput& in, const LayoutRow& row, const QRect& box) {
  const auto r = static_cast<size_t>(row.run);
  const LoadedRun& run = *(*in.runs)[r];
  const Lane& lane = run.timeline.lanes[static_cast<size_t>(row.lane)];
  const DeviceIdleSummary* device = FindDevice(run, lane.device);
  if (device == nullptr || lane.rows.empty()) return;
  const int top = box.top() + 6;
  const int height = box.bottom() - 1 - top;
  const QColor guide = ToQColor(Mix(kBusyRgb, row.lane % 2 == 0 ? kRowEvenRgb : kRowOddRgb, 0.75));
  p.fillRect(QRect(box.left(), top, box.width(), 1), guide);
  p.fillRect(QRect(box.left(), top + height / 2, box.width(), 1), guide);
  device->busy.Columns(lane.rows[0], RunGrid(in, r), kBusyColumnPx, busy_columns_);
  const QColor fill = ToQColor(kBusyRgb);
  for (size_t i = 0; i < busy_columns_.size(); ++i) {
    const int h = static_cast<int>(std::lround(busy_columns_[i] * static_cast<float>(height)));
    if (h <= 0) continue;
    const int x = box.left() + static_cast<int>(i) * kBusyColumnPx;
    p.fillRect(QRect(x, top + height - h, std::min(kBusyColumnPx, box.right() + 1 - x), h), fill);
  }
}

}  // namespace nimble::gui
