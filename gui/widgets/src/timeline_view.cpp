#include "nimble/gui/timeline_view.h"

#include <QPainter>
#include <QResizeEvent>
#include <QScrollBar>

#include <algorithm>
#include <cmath>
#include <limits>

#include "nimble/gui/iteration_detector.h"
#include "nimble/gui/theme.h"

namespace nimble::gui {
namespace {

constexpr double kFitMargin = 0.02;        // of the fitted range, each side

}  // namespace

TimelineView::TimelineView(QWidget* parent) : QAbstractScrollArea(parent) {
  setFocusPolicy(Qt::StrongFocus);
  setFrameShape(QFrame::NoFrame);
  viewport()->setMouseTracking(true);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
  viewport()->setAttribute(Qt::WA_OpaquePaintEvent);
  setMinimumSize(400, 160);
}

void TimelineView::SetRuns(LoadedRuns runs) {
  runs_ = std::move(runs);
  colors_.clear();
  align_ns_.clear();
  for (const auto& run : runs_) {
    colors_.push_back(ResolveColors(*run));
    align_ns_.push_back(run->AlignNs());
  }
  RebuildLayout();
  selection_ = {};
  link_.reset();
  hits_.clear();
  hits_run_ = -1;
  iteration_ = -1;
  UpdateScrollRange();
  FitFirstView();
}

std::vector<const RunTimeline*> TimelineView::Timelines() const {
  std::vector<const RunTimeline*> timelines;
  for (const auto& run : runs_) timelines.push_back(&run->timeline);
  return timelines;
}

void TimelineView::RebuildLayout() {
  const std::vector<const RunTimeline*> timelines = Timelines();
  const bool headers = runs_.size() > 1;
  const int available = viewport()->height() - TimelineGeometry::kRulerHeightPx;
  layout_.Build(timelines, headers, FitHeights(timelines, headers, available));
}

int TimelineView::FullHeightPx() const {
  const std::vector<const RunTimeline*> timelines = Timelines();
  const bool headers = runs_.size() > 1;
  return TimelineGeometry::kRulerHeightPx +
         LaidOutHeight(timelines, headers, FitHeights(timelines, headers, std::numeric_limits<int32_t>::max()));
}

int TimelineView::scroll_y() const { return verticalScrollBar()->value(); }

void TimelineView::SetColorByOp(bool by_op) {
  color_by_op_ = by_op;
  viewport()->update();
}

PaintInput TimelineView::MakePaintInput() const {
  PaintInput in;
  in.runs = &runs_;
  in.colors = &colors_;
  in.align_ns = &align_ns_;
  in.layout = &layout_;
  in.scale = scale_;
  in.geometry.viewport = viewport()->size();
  in.geometry.scroll_y_px = scroll_y();
  in.color_by_op = color_by_op_;
  in.selection = selection_;
  in.link = link_;
  in.hits_run = hits_run_;
  in.hits = &hits_;
  in.drag_x_px = drag_x_px_;
  in.aligned_iteration = iteration_;
  return in;
}

std::pair<double, double> TimelineView::Bounds() const {
  double lo = 0;
  double hi = 1;
  for (size_t i = 0; i < runs_.size(); ++i) {
    const double start = static_cast<double>(runs_[i]->timeline.start_ns - align_ns_[i]);
    const double end = static_cast<double>(runs_[i]->timeline.end_ns - align_ns_[i]);
    lo = i == 0 ? start : std::min(lo, start);
    hi = i == 0 ? end : std::max(hi, end);
  }
  return {lo, std::max(hi, lo + 1)};
}

void TimelineView::ViewChanged() {
  const auto [lo, hi] = Bounds();
  scale_.Clamp(lo, hi);
  viewport()->update();
  emit viewChanged();
}

void TimelineView::paintEvent(QPaintEvent*) {
  QPainter p(viewport());
  if (runs_.empty()) {
    p.fillRect(viewport()->rect(), ToQColor(kBackgroundRgb));
    return;
  }
  painter_.Paint(p, MakePaintInput());
  if (layout_.rows().empty() || (runs_.size() == 1 && runs_[0]->timeline.lanes.empty())) {
    p.setPen(ToQColor(kDimTextRgb));
    p.drawText(viewport()->rect().adjusted(TimelineGeometry::kLabelWidthPx, TimelineGeometry::kRulerHeightPx, 0, 0),
               Qt::AlignCenter,
               "This run holds no recorded activity: no kernels, copies, API calls or NVTX ranges.");
  }
}

void TimelineView::resizeEvent(QResizeEvent* event) {
  QAbstractScrollArea::resizeEvent(event);
  scale_.SetWidth(std::max(1, viewport()->width() - TimelineGeometry::kLabelWidthPx));
  if (event->size().height() != event->oldSize().height()) RebuildLayout();
  UpdateScrollRange();
  ViewChanged();
}

void TimelineView::UpdateScrollRange() {
  const int visible = std::max(0, viewport()->height() - TimelineGeometry::kRulerHeightPx);
  verticalScrollBar()->setRange(0, std::max(0, layout_.height_px() - visible));
  verticalScrollBar()->setPageStep(visible);
  verticalScrollBar()->setSingleStep(20);
}

void TimelineView::scrollContentsBy(int, int) { viewport()->update(); }

void TimelineView::FitAll() {
  const auto [lo, hi] = Bounds();
  const double margin = (hi - lo) * kFitMargin;
  SetViewRange(lo - margin, hi + margin);
}

void TimelineView::FitFirstView() {
  if (runs_.empty()) return;
  const auto& iterations = runs_[0]->timeline.iterations;
  if (iterations.empty()) {
    FitActivity();
    return;
  }
  FitIteration(MedianIteration(iterations));
}

void TimelineView::FitActivity() {
  if (runs_.empty()) return;
  double lo = 0;
  double hi = 0;
  bool any = false;
  const auto add = [&](double a, double b) {
    lo = any ? std::min(lo, a) : a;
    hi = any ? std::max(hi, b) : b;
    any = true;
  };
  for (size_t i = 0; i < runs_.size(); ++i) {
    const double align = static_cast<double>(align_ns_[i]);
    const auto& iterations = runs_[i]->timeline.iterations;
    if (!iterations.empty()) {
      add(static_cast<double>(iterations.front().first) - align, static_cast<double>(iterations.back().second) - align);
      continue;
    }
    for (const DeviceIdleSummary& d : runs_[i]->devices) {
      add(static_cast<double>(d.span_start_ns) - align, static_cast<double>(d.span_end_ns) - align);
    }
  }
  if (!any) {
    FitAll();
    return;
  }
  const double margin = (hi - lo) * kFitMargin;
  SetViewRange(lo - margin, hi + margin);
}

void TimelineView::FitIteration(int index) {
  if (runs_.empty() || runs_[0]->timeline.iterations.empty()) return;
  const auto& windows = runs_[0]->timeline.iterations;
  iteration_ = std::clamp(index, 0, static_cast<int>(windows.size()) - 1);
  // The first run keeps its origin (its first iteration: the ruler, details and tables count from
  // there); every other run is shifted so that its own iteration of that number (its last if it has
  // fewer) starts where the first run's does, one above another. The view takes the longest of them.
  const int64_t at = windows[static_cast<size_t>(iteration_)].first - runs_[0]->AlignNs();
  int64_t longest = 0;
  for (size_t i = 0; i < runs_.size(); ++i) {
    const auto& iterations = runs_[i]->timeline.iterations;
    if (iterations.empty()) {
      align_ns_[i] = runs_[i]->AlignNs();
      continue;
    }
    const auto [start, end] = iterations[std::min(static_cast<size_t>(iteration_), iterations.size() - 1)];
    align_ns_[i] = start - at;
    longest = std::max(longest, end - start);
  }
  const double margin = static_cast<double>(longest) * kFitMargin;
  SetViewRange(static_cast<double>(at) - margin, static_cast<double>(at + longest) + margin);
}

void TimelineView::SetViewRange(double start_ns, double end_ns) {
  scale_.SetWidth(std::max(1, viewport()->width() - TimelineGeometry::kLabelWidthPx));
  scale_.Fit(start_ns, end_ns);
  ViewChanged();
}

void TimelineView::ZoomToRange(int run, int64_t start_ns, int64_t end_ns, int lane) {
  if (run < 0 || static_cast<size_t>(run) >= runs_.size()) return;
  const double margin = std::max(static_cast<double>(end_ns - start_ns) * 0.5, 2000.0);
  const double align = static_cast<double>(align_ns_[static_cast<size_t>(run)]);
  SetViewRange(static_cast<double>(start_ns) - align - margin, static_cast<double>(end_ns) - align + margin);
  if (lane >= 0) ScrollToLane(run, lane);
}

void TimelineView::ScrollToLane(int run, int lane) {
  const LayoutRow* row = layout_.Find(run, lane, 0);
  if (row == nullptr) return;
  const int visible = viewport()->height() - TimelineGeometry::kRulerHeightPx;
  const int top = scroll_y();
  if (row->y_px < top || row->y_px + row->height_px > top + visible) {
    verticalScrollBar()->setValue(std::max(0, row->y_px - visible / 3));
  }
}

void TimelineView::ZoomBy(double factor) {
  scale_.ZoomAbout(scale_.width_px() / 2, factor);
  ViewChanged();
}

void TimelineView::PanBy(double fraction_of_width) {
  scale_.Pan(fraction_of_width * scale_.width_px());
  ViewChanged();
}

void TimelineView::Select(const ItemLocation& location) {
  selection_ = location;
  link_ = FindLink(location);
  if (location.valid()) ScrollToLane(location.run, location.lane);
  viewport()->update();
  emit selectionChanged(selection_);
}

void TimelineView::ZoomToItem(const ItemLocation& location) {
  if (!location.valid()) return;
  const RowItems& row = runs_[static_cast<size_t>(location.run)]
                            ->timeline.lanes[static_cast<size_t>(location.lane)]
                            .rows[static_cast<size_t>(location.row)];
  const auto i = static_cast<size_t>(location.item);
  ZoomToRange(location.run, row.start_ns(i), row.effective_end_ns(i), location.lane);
  Select(location);
}

void TimelineView::SetSearchHits(int run, std::vector<SearchHit> hits) {
  hits_run_ = run;
  hits_ = std::move(hits);
  viewport()->update();
}

// The other end of a launch: a kernel's API call, or an API call's kernel (by correlation id).
std::optional<std::pair<ItemLocation, ItemLocation>> TimelineView::FindLink(const ItemLocation& loc) const {
  if (!loc.valid()) return std::nullopt;
  const RunTimeline& t = runs_[static_cast<size_t>(loc.run)]->timeline;
  const ItemRef ref =
      t.lanes[static_cast<size_t>(loc.lane)].rows[static_cast<size_t>(loc.row)].ref(static_cast<size_t>(loc.item));
  RunTimeline::Location other;
  if (ref.kind() == ItemKind::kApiCall) {
    other = t.FindKernelByCorrelation(t.api_correlation[ref.index()]);
    if (other.lane < 0) return std::nullopt;
    return std::pair(loc, ItemLocation{loc.run, other.lane, other.row, other.item});
  }
  if (ref.kind() != ItemKind::kKernel || ref.index() >= t.kernel_correlation.size()) return std::nullopt;
  other = t.FindApiCall(t.kernel_correlation[ref.index()]);
  if (other.lane < 0) return std::nullopt;
  return std::pair(ItemLocation{loc.run, other.lane, other.row, other.item}, loc);
}

ItemLocation TimelineView::HitTest(const QPoint& pos) const {
  if (pos.x() < TimelineGeometry::kLabelWidthPx || pos.y() < TimelineGeometry::kRulerHeightPx) return {};
  const LayoutRow* row = layout_.RowAt(pos.y() - TimelineGeometry::kRulerHeightPx + scroll_y());
  if (row == nullptr || row->header) return {};
  const Lane& lane = runs_[static_cast<size_t>(row->run)]->timeline.lanes[static_cast<size_t>(row->lane)];
  if (static_cast<size_t>(row->row) >= lane.rows.size()) return {};
  const PaintInput in = MakePaintInput();
  const PixelGrid grid = TimelinePainter::RunGrid(in, static_cast<size_t>(row->run));
  const double t = grid.left_ns + (pos.x() - TimelineGeometry::kLabelWidthPx + 0.5) * grid.ns_per_px;
  const auto tolerance = static_cast<int64_t>(std::ceil(3 * grid.ns_per_px));
  const int64_t item = lane.rows[static_cast<size_t>(row->row)].FindNear(static_cast<int64_t>(std::floor(t)), tolerance);
  if (item < 0) return {};
  return {row->run, row->lane, row->row, item};
}

}  // namespace nimble::gui
