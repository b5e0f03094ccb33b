#include "nimble/gui/main_window.h"

#include <QComboBox>
#include <QDockWidget>
#include <QFileDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProgressBar>
#include <QShortcut>
#include <QSplitter>
#include <QStatusBar>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

#include "nimble/gui/details_pane.h"
#include "nimble/gui/insight_tabs.h"
#include "nimble/gui/ruler_ticks.h"
#include "nimble/gui/search_panel.h"
#include "nimble/gui/speedup_chart.h"
#include "nimble/gui/timeline_legend.h"
#include "nimble/gui/timeline_view.h"

namespace nimble::gui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle("nimble-gui");
  timeline_ = new TimelineView;
  legend_ = new TimelineLegend;
  tabs_ = new InsightTabs;
  details_ = new DetailsPane;
  speedups_ = new SpeedupChart;
  search_ = new SearchPanel;
  BuildToolbar();
  BuildPanels();
  Wire();
  resize(1600, 1000);
}

void MainWindow::BuildToolbar() {
  QToolBar* bar = addToolBar("View");
  bar->setMovable(false);
  bar->addAction("Open…", this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, "Open a run database", {}, "Run databases (*.db);;All files (*)");
    if (!path.isEmpty()) Open({{path.toStdString(), std::nullopt}});
  });
  bar->addSeparator();
  bar->addAction("Fit all", timeline_, &TimelineView::FitAll)->setToolTip("Show the whole run (F)");
  bar->addAction("◀", timeline_, &TimelineView::PreviousIteration)->setToolTip("Previous iteration (P)");
  iteration_label_ = new QLabel(" no iterations ");
  bar->addWidget(iteration_label_);
  bar->addAction("▶", timeline_, &TimelineView::NextIteration)->setToolTip("Next iteration (N)");
  bar->addAction("Fit iteration", timeline_, [this] { timeline_->FitIteration(std::max(timeline_->current_iteration(), 0)); })
      ->setToolTip("Fit one iteration (NVTX range that repeats most) (I)");
  bar->addSeparator();
  bar->addAction("Zoom in", timeline_, [this] { timeline_->ZoomBy(0.5); })->setToolTip("Or the wheel, or W");
  bar->addAction("Zoom out", timeline_, [this] { timeline_->ZoomBy(2); })->setToolTip("Or the wheel, or S");
  bar->addSeparator();
  bar->addWidget(new QLabel(" Colour by "));
  auto* coloring = new QComboBox;
  coloring->addItems({"op kind", "kernel name"});
  connect(coloring, &QComboBox::currentIndexChanged, this, [this](int i) { timeline_->SetColorByOp(i == 0); });
  bar->addWidget(coloring);
  bar->addSeparator();
  search_box_ = new QLineEdit;
  search_box_->setPlaceholderText("Search kernels, ops, API calls, NVTX ranges  (Ctrl+F)");
  search_box_->setClearButtonEnabled(true);
  search_box_->setMinimumWidth(320);
  bar->addWidget(search_box_);
  auto* focus = new QShortcut(QKeySequence::Find, this);
  connect(focus, &QShortcut::activated, search_box_, [this] { search_box_->setFocus(); search_box_->selectAll(); });
}

void MainWindow::BuildPanels() {
  auto* top = new QWidget;
  auto* top_layout = new QVBoxLayout(top);
  top_layout->setContentsMargins(0, 0, 0, 0);
  top_layout->setSpacing(0);
  top_layout->addWidget(timeline_, 1);
  top_layout->addWidget(legend_);
  tabs_->addTab(search_, "Search");
  split_ = new QSplitter(Qt::Vertical);
  split_->addWidget(top);
  split_->addWidget(tabs_);
  split_->setStretchFactor(0, 3);
  split_->setStretchFactor(1, 1);
  split_->setSizes({640, 260});
  setCentralWidget(split_);

  auto* side = new QSplitter(Qt::Vertical);
  side->addWidget(details_);
  side->addWidget(speedups_);
  side->setSizes({520, 300});
  auto* dock = new QDockWidget("Details", this);
  dock->setObjectName("details");
  dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
  dock->setWidget(side);
  addDockWidget(Qt::RightDockWidgetArea, dock);
  resizeDocks({dock}, {360}, Qt::Horizontal);

  status_ = new QLabel("Open a run database (File › Open, or nimble-gui run.db).");
  progress_ = new QProgressBar;
  progress_->setRange(0, 1000);
  progress_->setMaximumWidth(280);
  progress_->setVisible(false);
  statusBar()->addWidget(status_, 1);
  statusBar()->addPermanentWidget(progress_);
}

void MainWindow::Wire() {
  connect(&job_, &RunLoadJob::progress, this, [this](int permille, const QString& stage) {
    progress_->setVisible(true);
    progress_->setValue(permille);
    status_->setText(stage + "…");
  });
  connect(&job_, &RunLoadJob::loaded, this, &MainWindow::OnLoaded);
  connect(&job_, &RunLoadJob::failed, this, &MainWindow::OnFailed);
  connect(timeline_, &TimelineView::selectionChanged, details_, &DetailsPane::ShowItem);
  connect(timeline_, &TimelineView::viewChanged, this, &MainWindow::UpdateIterationLabel);
  const auto zoom_to_range = [this](int run, qint64 start_ns, qint64 end_ns, int lane) {
    timeline_->ZoomToRange(run, start_ns, end_ns, lane);
  };
  connect(tabs_, &InsightTabs::itemRequested, timeline_, &TimelineView::ZoomToItem);
  connect(tabs_, &InsightTabs::rangeRequested, timeline_, zoom_to_range);
  connect(search_, &SearchPanel::itemRequested, timeline_, &TimelineView::ZoomToItem);
  connect(search_, &SearchPanel::rangeRequested, timeline_, zoom_to_range);
  connect(search_, &SearchPanel::hitsChanged, timeline_, &TimelineView::SetSearchHits);
  connect(search_, &SearchPanel::searched, this, [this] { tabs_->setCurrentWidget(search_); });
  // Search as the user types, once they pause.
  auto* debounce = new QTimer(this);
  debounce->setSingleShot(true);
  debounce->setInterval(250);
  connect(search_box_, &QLineEdit::textChanged, debounce, qOverload<>(&QTimer::start));
  connect(debounce, &QTimer::timeout, this, [this] { search_->Search(search_box_->text()); });
  connect(search_box_, &QLineEdit::returnPressed, this, [this] { search_->Search(search_box_->text()); });
}

void MainWindow::Open(std::vector<RunSource> sources) {
  if (sources.empty()) return;
  QString names;
  for (const RunSource& s : sources) names += (names.isEmpty() ? "" : ", ") + QString::fromStdString(s.path);
  status_->setText("Opening " + names + "…");
  progress_->setValue(0);
  progress_->setVisible(true);
  job_.Start(std::move(sources));
}

void MainWindow::OnLoaded(const LoadedRuns& runs) {
  runs_ = runs;
  progress_->setVisible(false);
  timeline_->SetRuns(runs_);
  details_->SetRuns(runs_);
  tabs_->SetRuns(runs_);
  speedups_->SetRuns(runs_);
  speedups_->setVisible(!speedups_->speedups().empty());
  search_->SetRuns(runs_);
  FitTimelinePane();
  int64_t kernels = 0;
  double load_ms = 0;
  for (const auto& run : runs_) {
    kernels += run->timeline.kernel_count;
    load_ms += run->timings.total_ms;
  }
  const QString label = QString::fromStdString(runs_.front()->Label()) + (runs_.size() > 1 ? QString(" (+%1 more)").arg(runs_.size() - 1) : "");
  setWindowTitle("nimble-gui — " + label);
  status_->setText(QString("%1 run(s), %2 kernels, loaded in %3 s. Wheel: zoom · drag: pan · shift-drag: zoom to range · "
                           "click: details · I/N/P: iterations")
                       .arg(runs_.size()).arg(kernels).arg(load_ms / 1000, 0, 'f', 2));
  legend_->SetSummary(label);
  UpdateIterationLabel();
  emit runsLoaded();
}

void MainWindow::OnFailed(const QString& message) {
  progress_->setVisible(false);
  status_->setText("Could not open: " + message);
  emit loadFailed(message);
  if (!interactive_) return;
  auto* box = new QMessageBox(QMessageBox::Critical, "Cannot open the run database", message, QMessageBox::Ok, this);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();
}

// Lanes taller than their limit would only leave empty space under them: the timeline gets the height
// its rows can use (at most three quarters of the splitter, at least kMinTimelinePx) and the tables
// under it the rest.
void MainWindow::FitTimelinePane() {
  constexpr int kMinTimelinePx = 200;
  const int total = split_->height() - split_->handleWidth();
  const int want = timeline_->FullHeightPx() + legend_->height();
  const int top = std::max(std::min(want, total * 3 / 4), std::min(kMinTimelinePx, total));
  split_->setSizes({top, total - top});
}

void MainWindow::UpdateIterationLabel() {
  const size_t count = runs_.empty() ? 0 : runs_.front()->timeline.iterations.size();
  if (count == 0) {
    iteration_label_->setText(" no iterations ");
    return;
  }
  const int current = timeline_->current_iteration();
  iteration_label_->setText(QString(" iteration %1 / %2 ").arg(current < 0 ? QString("–") : QString::number(current + 1)).arg(count));
}

}  // namespace nimble::gui
