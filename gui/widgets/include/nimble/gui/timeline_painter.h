// Paints the timeline from precomputed draw lists: lane rows (kernels by op kind or name, copies, API
// calls, NVTX ranges), idle gaps coloured by cause in each device's idle lane (under its busy chart when
// the row is tall) and shaded across its streams, the critical-path band, the ruler, lane labels, and the
// overlays (selection, launch link, search hits, drag selection). Owns only scratch buffers; everything
// it paints comes in a PaintInput. UI thread only.
#pragma once

#include <QPainter>
#include <QRect>

#include <optional>
#include <utility>
#include <vector>

#include "nimble/gui/draw_list_builder.h"
#include "nimble/gui/item_description.h"
#include "nimble/gui/item_search.h"
#include "nimble/gui/lane_layout.h"
#include "nimble/gui/palette.h"
#include "nimble/gui/run_load_job.h"
#include "nimble/gui/time_scale.h"

namespace nimble::gui {

// Colours of one run, resolved once per run rather than per span.
struct RunColors {
  std::vector<Rgb> by_label;  // kernel, API and NVTX names, by StringId
  std::vector<Rgb> by_op;     // op kinds, by OpId
};
RunColors ResolveColors(const LoadedRun& run);

struct TimelineGeometry {
  static constexpr int kLabelWidthPx = 210;
  static constexpr int kRulerHeightPx = 34;
  // A device's idle gaps take the bottom of its idle row; a taller row shows the busy chart above them.
  static constexpr int kIdleStripPx = 14;
  static constexpr int kMinBusyChartPx = 20;
  // The critical-path band: 3 px, ending 3 px above the bottom of a stream row of `row_px`.
  static constexpr int kBandPx = 3;
  static constexpr int BandTop(int row_px) { return row_px - kBandPx - 2; }
  QSize viewport;
  int scroll_y_px = 0;

  int lanes_left() const { return kLabelWidthPx; }
  int lanes_width() const { return std::max(1, viewport.width() - kLabelWidthPx); }
  // Viewport y of a content y.
  int Y(int content_y) const { return kRulerHeightPx + content_y - scroll_y_px; }
};

struct PaintInput {
  const LoadedRuns* runs = nullptr;
  const std::vector<RunColors>* colors = nullptr;
  const std::vector<int64_t>* align_ns = nullptr;  // per run: relative time shown at view time 0
  const LaneLayout* layout = nullptr;
  TimeScale scale;
  TimelineGeometry geometry;
  bool color_by_op = true;
  ItemLocation selection;
  std::optional<std::pair<ItemLocation, ItemLocation>> link;  // launch call -> kernel
  int32_t hits_run = -1;
  const std::vector<SearchHit>* hits = nullptr;
  std::optional<std::pair<double, double>> drag_x_px;  // drag-selection, lanes-area x
  int aligned_iteration = -1;  // several runs: the iteration (0-based) at which they line up; -1: the first
};

class TimelinePainter {
 public:
  void Paint(QPainter& p, const PaintInput& in);
  // Grid of run `run`'s own times for the current scale (the view shifted by the run's alignment).
  static PixelGrid RunGrid(const PaintInput& in, size_t run);

 private:
  void PaintRow(QPainter& p, const PaintInput& in, const LayoutRow& row);
  void PaintSpans(QPainter& p, const PaintInput& in, const LayoutRow& row, const RowItems& items, const QRect& box);
  void PaintGapShade(QPainter& p, const PaintInput& in, const LayoutRow& row, const QRect& box);
  void PaintCritical(QPainter& p, const PaintInput& in, const LayoutRow& row, const QRect& box);
  void PaintBusyChart(QPainter& p, const PaintInput& in, const LayoutRow& row, const QRect& box);
  const std::vector<DrawSpan>& IdleSpans(const PaintInput& in, size_t run, DeviceId device);

  DrawListBuilder builder_;
  std::vector<DrawSpan> spans_;
  std::vector<float> busy_columns_;
  // Per frame: the idle lane's draw list of each (run, device), shared by that device's stream rows.
  std::vector<std::pair<std::pair<size_t, int32_t>, std::vector<DrawSpan>>> idle_cache_;
};

// Ruler, label column and overlays (timeline_overlays.cpp).
void PaintRuler(QPainter& p, const PaintInput& in);
// The ruler's tick labels as PaintRuler draws them: viewport rectangles inside the lanes' part of the
// ruler, in the timeline font (ruler_ticks.h PlaceLabels).
std::vector<std::pair<QRectF, QString>> RulerLabels(const TimeScale& scale, const TimelineGeometry& geometry);
void PaintLabelColumn(QPainter& p, const PaintInput& in);
void PaintOverlays(QPainter& p, const PaintInput& in);
// The device summary of a run's device (its busy profile), or null.
const DeviceIdleSummary* FindDevice(const LoadedRun& run, DeviceId device);
// Viewport rectangle of an item of a run (clipped to nothing when off screen); empty when not laid out.
QRectF ItemRect(const PaintInput& in, const ItemLocation& location);

}  // namespace nimble::gui
