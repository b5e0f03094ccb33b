// The parts of the timeline drawn around and over the lanes: the ruler with iteration marks, the lane
// labels (with the busy chart's), and the overlays (search hits, selection, launch link, drag selection).
#include <QFontMetricsF>
#include <QPainterPath>

#include <cmath>

#include "nimble/gui/ruler_ticks.h"
#include "nimble/gui/theme.h"
#include "nimble/gui/timeline_painter.h"

namespace nimble::gui {
namespace {

constexpr int kIterationStripTopPx = 26;
constexpr int kIterationStripPx = 6;

void PaintIterations(QPainter& p, const PaintInput& in) {
  if (in.runs->empty()) return;
  const RunTimeline& t = (*in.runs)[0]->timeline;
  const PixelGrid grid = TimelinePainter::RunGrid(in, 0);
  const int left = in.geometry.lanes_left();
  for (size_t i = 0; i < t.iterations.size(); ++i) {
    const double x0 = (static_cast<double>(t.iterations[i].first) - grid.left_ns) / grid.ns_per_px;
    const double x1 = (static_cast<double>(t.iterations[i].second) - grid.left_ns) / grid.ns_per_px;
    if (x1 < 0 || x0 > grid.width_px) continue;
    const QRectF bar(left + std::max(x0, 0.0), kIterationStripTopPx, std::max(std::min(x1, 1.0 * grid.width_px) - std::max(x0, 0.0), 1.0),
                     kIterationStripPx);
    p.fillRect(bar, ToQColor(kIterationRgb, 150));
    if (bar.width() > 70) {
      p.setPen(ToQColor(kTextRgb));
      p.drawText(bar.adjusted(3, -1, 0, 1), Qt::AlignVCenter | Qt::AlignLeft, QString("iteration %1").arg(i + 1));
    }
  }
}

// A device's tall idle row: "GPU 0 busy" and its share of the view over the chart, the chart's scale at
// the column's edge, and the lane's own title at the gap strip.
void PaintBusyLabels(QPainter& p, const PaintInput& in, const LayoutRow& row, const QFont& font) {
  const LoadedRun& run = *(*in.runs)[static_cast<size_t>(row.run)];
  const Lane& lane = run.timeline.lanes[static_cast<size_t>(row.lane)];
  const int y = in.geometry.Y(row.y_px);
  const int text_width = in.geometry.lanes_left() - 16;
  QFont bold = font;
  bold.setBold(true);
  p.setFont(bold);
  p.setPen(ToQColor(kTextRgb));
  p.drawText(QRect(10, y + 2, text_width, 16), Qt::AlignVCenter | Qt::AlignLeft,
             QString("GPU %1 busy").arg(lane.device.value()));
  p.setFont(font);
  p.setPen(ToQColor(kDimTextRgb));
  const DeviceIdleSummary* device = FindDevice(run, lane.device);
  const PixelGrid grid = TimelinePainter::RunGrid(in, static_cast<size_t>(row.run));
  const int64_t start = grid.PixelStartNs(0);
  const int64_t end = grid.PixelStartNs(grid.width_px);
  if (device != nullptr && !lane.rows.empty() && end > start && row.height_px >= 56) {
    const double share = static_cast<double>(device->busy.BusyNs(lane.rows[0], start, end)) / static_cast<double>(end - start);
    p.drawText(QRect(10, y + 18, text_width, 16), Qt::AlignVCenter | Qt::AlignLeft,
               QString("%1% of the time shown").arg(100 * share, 0, 'f', 1));
  }
  // The chart's 100% and 50% guides (PaintBusyChart) are labelled at the column's right edge.
  const int chart_top = y + 6;
  const int chart_height = row.height_px - TimelineGeometry::kIdleStripPx - 7;
  const QRect scale(in.geometry.lanes_left() - 40, 0, 34, 12);
  p.drawText(scale.translated(0, chart_top - 6), Qt::AlignVCenter | Qt::AlignRight, "100%");
  if (chart_height >= 40) p.drawText(scale.translated(0, chart_top + chart_height / 2 - 6), Qt::AlignVCenter | Qt::AlignRight, "50%");
  p.drawText(QRect(10, y + row.height_px - TimelineGeometry::kIdleStripPx, text_width, TimelineGeometry::kIdleStripPx),
             Qt::AlignVCenter | Qt::AlignLeft, "idle gaps, by cause");
}

}  // namespace

void PaintRuler(QPainter& p, const PaintInput& in) {
  const int width = in.geometry.viewport.width();
  const int height = TimelineGeometry::kRulerHeightPx;
  const int left = in.geometry.lanes_left();
  p.fillRect(QRect(0, 0, width, height), ToQColor(kLabelColumnRgb));
  QFont font = TimelineFont();
  p.setFont(font);
  p.setPen(ToQColor(kDimTextRgb));
  p.drawText(QRect(8, 0, left - 12, 16), Qt::AlignVCenter | Qt::AlignLeft,
             QString("Window %1").arg(QString::fromStdString(FormatDuration(in.scale.span_ns()))));
  p.drawText(QRect(8, 16, left - 12, 16), Qt::AlignVCenter | Qt::AlignLeft,
             in.runs->size() <= 1         ? QString("0 = first iteration")
             : in.aligned_iteration < 0 ? QString("aligned at first iteration")
                                        : QString("0 = first iteration, aligned at %1").arg(in.aligned_iteration + 1));
  const RulerTicks ticks = ComputeTicks(TimeScale(in.scale.left_ns(), in.scale.ns_per_px(), in.geometry.lanes_width()));
  for (const Tick& tick : ticks.ticks) {
    const int x = left + static_cast<int>(std::lround(tick.x_px));
    p.fillRect(QRect(x, tick.major ? 14 : 20, 1, tick.major ? 12 : 6), ToQColor(tick.major ? kTextRgb : kDimTextRgb));
  }
  p.setPen(ToQColor(kTextRgb));
  for (const auto& [box, text] : RulerLabels(in.scale, in.geometry)) {
    p.drawText(box, Qt::AlignVCenter | Qt::AlignLeft | Qt::TextDontClip, text);  // the box is the text's own width
  }
  PaintIterations(p, in);
  p.fillRect(QRect(0, height - 1, width, 1), ToQColor(kLaneSeparatorRgb));
  p.fillRect(QRect(left - 1, 0, 1, height), ToQColor(kLaneSeparatorRgb));
}

std::vector<std::pair<QRectF, QString>> RulerLabels(const TimeScale& scale, const TimelineGeometry& geometry) {
  const QFontMetricsF metrics(TimelineFont());
  const int width = geometry.lanes_width();
  const RulerTicks ticks = ComputeTicks(TimeScale(scale.left_ns(), scale.ns_per_px(), width));
  const auto measure = [&](const std::string& text) { return metrics.horizontalAdvance(QString::fromStdString(text)); };
  std::vector<std::pair<QRectF, QString>> out;
  for (const PlacedLabel& label : PlaceLabels(ticks, width, measure)) {
    out.emplace_back(QRectF(geometry.lanes_left() + label.left_px, 0, label.width_px, 15),
                     QString::fromStdString(ticks.ticks[label.tick].label));
  }
  return out;
}

void PaintLabelColumn(QPainter& p, const PaintInput& in) {
  const int left = in.geometry.lanes_left();
  const auto [first, last] = in.layout->Visible(
      in.geometry.scroll_y_px, in.geometry.scroll_y_px + in.geometry.viewport.height() - TimelineGeometry::kRulerHeightPx);
  QFont font = TimelineFont();
  QFont bold = font;
  bold.setBold(true);
  for (size_t i = first; i < last; ++i) {
    const LayoutRow& row = in.layout->rows()[i];
    const int y = in.geometry.Y(row.y_px);
    const LoadedRun& run = *(*in.runs)[static_cast<size_t>(row.run)];
    if (row.header) {
      p.setFont(bold);
      p.setPen(ToQColor(kTextRgb));
      p.drawText(QRect(8, y, in.geometry.viewport.width() - 16, row.height_px), Qt::AlignVCenter | Qt::AlignLeft,
                 QString::fromStdString(run.Label() + "   ·   " + run.info.device));
      continue;
    }
    p.fillRect(QRect(0, y, left - 1, row.height_px), ToQColor(kLabelColumnRgb));
    const Lane& lane = run.timeline.lanes[static_cast<size_t>(row.lane)];
    if (row.row == 0 && lane.kind == LaneKind::kDeviceIdle &&
        row.height_px >= TimelineGeometry::kIdleStripPx + TimelineGeometry::kMinBusyChartPx) {
      PaintBusyLabels(p, in, row, font);
    } else if (row.row == 0) {
      const bool gpu = lane.kind == LaneKind::kStream;
      p.setFont(gpu ? bold : font);
      p.setPen(ToQColor(lane.kind == LaneKind::kDeviceIdle ? kDimTextRgb : kTextRgb));
      p.drawText(QRect(10, y, left - 16, std::min(row.height_px, 22)), Qt::AlignVCenter | Qt::AlignLeft,
                 QString::fromStdString(lane.Title()));
    }
    if (row.last_of_lane) p.fillRect(QRect(0, y + row.height_px - 1, left, 1), ToQColor(kLaneSeparatorRgb));
  }
  p.fillRect(QRect(left - 1, TimelineGeometry::kRulerHeightPx, 1, in.geometry.viewport.height()),
             ToQColor(kLaneSeparatorRgb));
}

QRectF ItemRect(const PaintInput& in, const ItemLocation& loc) {
  if (!loc.valid() || static_cast<size_t>(loc.run) >= in.runs->size()) return {};
  const LayoutRow* row = in.layout->Find(loc.run, loc.lane, loc.row);
  if (row == nullptr) return {};
  const RowItems& items =
      (*in.runs)[static_cast<size_t>(loc.run)]->timeline.lanes[static_cast<size_t>(loc.lane)].rows[static_cast<size_t>(loc.row)];
  const PixelGrid grid = TimelinePainter::RunGrid(in, static_cast<size_t>(loc.run));
  const auto i = static_cast<size_t>(loc.item);
  const double x0 = (static_cast<double>(items.start_ns(i)) - grid.left_ns) / grid.ns_per_px;
  const double x1 = (static_cast<double>(items.effective_end_ns(i)) - grid.left_ns) / grid.ns_per_px;
  const double left = in.geometry.lanes_left() + std::clamp(x0, -10.0, grid.width_px + 10.0);
  const double right = in.geometry.lanes_left() + std::clamp(x1, -10.0, grid.width_px + 10.0);
  return QRectF(left, in.geometry.Y(row->y_px) + 1, std::max(right - left, 1.0), row->height_px - 3);
}

void PaintOverlays(QPainter& p, const PaintInput& in) {
  p.save();
  p.setClipRect(QRect(in.geometry.lanes_left(), TimelineGeometry::kRulerHeightPx, in.geometry.lanes_width(),
                      in.geometry.viewport.height()));
  if (in.hits != nullptr && in.hits_run >= 0) {
    p.setPen(QPen(ToQColor(kSearchHitRgb), 1));
    for (const SearchHit& hit : *in.hits) {
      const QRectF r = ItemRect(in, {in.hits_run, hit.lane, hit.row, hit.item});
      if (!r.isEmpty() && r.right() >= in.geometry.lanes_left()) p.drawRect(r.adjusted(0, 0, -1, -1));
    }
  }
  if (in.link) {
    const QRectF from = ItemRect(in, in.link->first);
    const QRectF to = ItemRect(in, in.link->second);
    if (!from.isEmpty() && !to.isEmpty()) {
      p.setRenderHint(QPainter::Antialiasing, true);
      const QPointF a(from.right(), from.center().y());
      const QPointF b(to.left(), to.top() < a.y() ? to.bottom() : to.top());
      QPainterPath path(a);
      path.cubicTo(QPointF(a.x() + 30, a.y()), QPointF(b.x(), a.y() + (b.y() - a.y()) / 2), b);
      p.setPen(QPen(ToQColor(kLinkRgb), 1.6));
      p.drawPath(path);
      p.setBrush(ToQColor(kLinkRgb));
      const double dir = b.y() > a.y() ? -1 : 1;
      p.drawPolygon(QPolygonF({b, b + QPointF(-4, 7 * dir), b + QPointF(4, 7 * dir)}));
      p.setRenderHint(QPainter::Antialiasing, false);
    }
  }
  const QRectF selected = ItemRect(in, in.selection);
  if (!selected.isEmpty()) {
    p.setPen(QPen(ToQColor(kSelectionRgb), 2));
    p.setBrush(Qt::NoBrush);
    p.drawRect(selected.adjusted(-1, 0, 0, 0));
  }
  if (in.drag_x_px) {
    const double x0 = std::min(in.drag_x_px->first, in.drag_x_px->second);
    const double x1 = std::max(in.drag_x_px->first, in.drag_x_px->second);
    p.fillRect(QRectF(in.geometry.lanes_left() + x0, TimelineGeometry::kRulerHeightPx, x1 - x0, in.geometry.viewport.height()),
               QColor(0x7f, 0xb2, 0xff, 50));
  }
  p.restore();
}

}  // namespace nimble::gui
