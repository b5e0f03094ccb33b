// The timeline widget: runs stacked one above the other (aligned at their first iteration, or at the iteration fitted), a ruler,
// lane labels, and the interaction - wheel zoom about the cursor, drag to pan, shift-drag (or drag in
// the ruler) to zoom to a range, keys, fit-to-iteration, click to select (with the launch link drawn
// between an API call and its kernel), double-click to zoom to an item. A few lanes grow to fill the
// view's height. Painting is delegated to TimelinePainter over precomputed draw lists. UI thread only.
#pragma once

#include <QAbstractScrollArea>

#include <optional>
#include <utility>
#include <vector>

#include "nimble/gui/timeline_painter.h"

namespace nimble::gui {

class TimelineView : public QAbstractScrollArea {
  Q_OBJECT

 public:
  explicit TimelineView(QWidget* parent = nullptr);

  void SetRuns(LoadedRuns runs);
  const LoadedRuns& runs() const { return runs_; }
  const TimeScale& scale() const { return scale_; }
  const LaneLayout& layout() const { return layout_; }
  int64_t align_ns(size_t run) const { return align_ns_[run]; }
  int scroll_y() const;
  const ItemLocation& selection() const { return selection_; }
  const std::optional<std::pair<ItemLocation, ItemLocation>>& link() const { return link_; }
  int current_iteration() const { return iteration_; }
  // The item under a viewport point, invalid when none.
  ItemLocation HitTest(const QPoint& pos) const;
  // Kernels in the colour of their op's kind (true), or of their own name.
  void SetColorByOp(bool by_op);
  // The height the ruler and lanes take with rows grown to their limits (lane_layout.h FitHeights): more
  // than that, and the view has nothing to fill it with.
  int FullHeightPx() const;

 public slots:
  void FitAll();
  // The view a run opens on: one iteration, readable rather than the whole run as a band - the first
  // run's median iteration (a typical one), each other run aligned at its own iteration of that number;
  // without iterations, the GPU activity of every run.
  void FitFirstView();
  // Fits the iterations of the first run, else the GPU activity of every run.
  void FitActivity();
  // Fits iteration `index` (0-based) of the first run, clamped to the iterations there are, with every
  // other run shifted so that its own iteration of that number (its last if it has fewer) starts where
  // the first run's does; times stay counted from the first run's first iteration.
  void FitIteration(int index);
  void NextIteration() { FitIteration(iteration_ + 1); }
  void PreviousIteration() { FitIteration(iteration_ - 1); }
  // Shows view times [start_ns, end_ns).
  void SetViewRange(double start_ns, double end_ns);
  // Shows relative times [start_ns, end_ns) of run `run`, with a margin, and scrolls to `lane` if given.
  void ZoomToRange(int run, int64_t start_ns, int64_t end_ns, int lane = -1);
  void ZoomBy(double factor);
  void PanBy(double fraction_of_width);
  void Select(const nimble::gui::ItemLocation& location);
  void ZoomToItem(const nimble::gui::ItemLocation& location);
  void SetSearchHits(int run, std::vector<nimble::gui::SearchHit> hits);

 signals:
  void selectionChanged(const nimble::gui::ItemLocation& location);
  void viewChanged();

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void scrollContentsBy(int dx, int dy) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  bool viewportEvent(QEvent* event) override;

 private:
  enum class Drag { kNone, kPan, kSelect };
  PaintInput MakePaintInput() const;
  std::pair<double, double> Bounds() const;
  void ViewChanged();
  void UpdateScrollRange();
  // Lays the rows out again to fill the viewport's height.
  void RebuildLayout();
  std::vector<const RunTimeline*> Timelines() const;
  void ScrollToLane(int run, int lane);
  std::optional<std::pair<ItemLocation, ItemLocation>> FindLink(const ItemLocation& location) const;

  LoadedRuns runs_;
  std::vector<RunColors> colors_;
  std::vector<int64_t> align_ns_;
  LaneLayout layout_;
  TimeScale scale_;
  TimelinePainter painter_;
  bool color_by_op_ = true;
  ItemLocation selection_;
  std::optional<std::pair<ItemLocation, ItemLocation>> link_;
  int hits_run_ = -1;
  std::vector<SearchHit> hits_;
  int iteration_ = -1;
  Drag drag_ = Drag::kNone;
  QPoint press_pos_;
  TimeScale press_scale_;
  int press_scroll_ = 0;
  bool moved_ = false;
  std::optional<std::pair<double, double>> drag_x_px_;
};

}  // namespace nimble::gui
