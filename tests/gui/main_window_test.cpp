// The viewer driven as a person would, in a real window: open the model run (on its median iteration,
// lanes filling the height the timeline is given), zoom with the wheel, click a kernel (details, launch
// link, its record read after the file is gone), jump from the critical-path table, drag-select in the
// ruler, search, keys for iterations, text that fits (ruler, legend), details and summary that say
// different things, a Diff tab in compare mode, and open a broken file (a message box).
#include <QApplication>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QProgressBar>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>
#include <QTextBrowser>

#include <filesystem>
#include <fstream>

#include "gui_test_env.h"
#include "gui_test_runs.h"
#include "nimble/analysis/run_diff.h"
#include "nimble/gui/details_pane.h"
#include "nimble/gui/insight_tabs.h"
#include "nimble/gui/iteration_detector.h"
#include "nimble/gui/main_window.h"
#include "nimble/gui/palette.h"
#include "nimble/gui/search_panel.h"
#include "nimble/gui/speedup_chart.h"
#include "nimble/gui/timeline_legend.h"
#include "nimble/gui/theme.h"
#include "nimble/gui/timeline_view.h"

namespace nimble::gui {
namespace {

namespace fs = std::filesystem;

QApplication* App() {
  static int argc = 1;
  static char name[] = "nimble_gui_tests";
  static char* argv[] = {name, nullptr};
  static QApplication* app = [] {
    auto* a = new QApplication(argc, argv);
    ApplyTheme(*a);
    return a;
  }();
  return app;
}

class MainWindowTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why_not;
    if (!testing::PrepareDisplay(why_not)) GTEST_SKIP() << why_not;
    App();
    dir_ = testing::MakeScratchDir("window");
    db_ = dir_ + "/model.db";
    facts_ = testing::WriteModelRun(db_);
    window_ = std::make_unique<MainWindow>();
    window_->resize(1500, 900);
    window_->show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(window_.get()));
  }
  void TearDown() override {
    window_.reset();
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  void Load(const std::string& path) {
    QSignalSpy loaded(window_.get(), &MainWindow::runsLoaded);
    window_->Open({{path, std::nullopt}});
    ASSERT_TRUE(loaded.wait(30'000));
  }

  // Viewport point of the middle of an item.
  QPoint Centre(const ItemLocation& loc) const {
    TimelineView* view = window_->timeline();
    const RowItems& row = view->runs()[0]->timeline.lanes[static_cast<size_t>(loc.lane)].rows[static_cast<size_t>(loc.row)];
    const auto i = static_cast<size_t>(loc.item);
    const double mid = static_cast<double>(row.start_ns(i) + row.end_ns(i)) / 2 - static_cast<double>(view->align_ns(0));
    const LayoutRow* laid = view->layout().Find(0, loc.lane, loc.row);
    return {TimelineGeometry::kLabelWidthPx + static_cast<int>(view->scale().ToPx(mid)),
            TimelineGeometry::kRulerHeightPx + laid->y_px - view->scroll_y() + laid->height_px / 2};
  }

  std::string dir_;
  std::string db_;
  testing::ModelRunFacts facts_;
  std::unique_ptr<MainWindow> window_;
};

TEST_F(MainWindowTest, OpensTheRunAndShowsItsLanes) {
  Load(db_);
  TimelineView* view = window_->timeline();
  EXPECT_EQ(view->layout().lane_count(), static_cast<size_t>(facts_.lanes));
  EXPECT_FALSE(window_->progress_bar()->isVisible());
  EXPECT_EQ(window_->tabs()->critical_table()->rowCount(), 4);
  EXPECT_EQ(window_->tabs()->critical_table()->item(0, 1)->text(), "conv_stem");
  EXPECT_EQ(window_->speedup_chart()->speedups().size(), 3u);
}

TEST_F(MainWindowTest, OpensOnTheMedianIterationWithLanesFillingTheTimeline) {
  Load(db_);
  TimelineView* view = window_->timeline();
  const auto& iterations = view->runs()[0]->timeline.iterations;
  const int median = MedianIteration(iterations);
  EXPECT_EQ(view->current_iteration(), median);
  const auto [start, end] = iterations[static_cast<size_t>(median)];
  EXPECT_LT(view->scale().left_ns(), static_cast<double>(start - view->align_ns(0)));
  EXPECT_GT(view->scale().right_ns(), static_cast<double>(end - view->align_ns(0)));
  EXPECT_LT(view->scale().span_ns(), 1.2 * static_cast<double>(end - start)) << "one iteration, not the run";
  // The lanes use the height they are given, and the tables take what they cannot use.
  const int lanes_px = view->viewport()->height() - TimelineGeometry::kRulerHeightPx;
  EXPECT_LE(view->layout().height_px(), lanes_px);
  EXPECT_GT(view->layout().height_px(), lanes_px - 12);
  EXPECT_LE(view->height(), view->FullHeightPx() + 2);
  EXPECT_GT(window_->tabs()->height(), 300);
}

TEST_F(MainWindowTest, DetailsAndSummaryNeverSayTheSameThing) {
  Load(db_);
  auto* summary = qobject_cast<QTextBrowser*>(window_->tabs()->widget(0));
  ASSERT_NE(summary, nullptr);
  const QString overview = summary->toPlainText();
  const QString guide = window_->details()->toPlainText();
  EXPECT_TRUE(overview.contains("NVIDIA H100 80GB HBM3")) << overview.toStdString();
  EXPECT_TRUE(overview.contains("Critical path")) << overview.toStdString();
  EXPECT_TRUE(guide.contains("Nothing selected")) << guide.toStdString();
  // No line of one pane stands in the other.
  for (const QString& line : guide.split('\n', Qt::SkipEmptyParts)) EXPECT_FALSE(overview.contains(line.trimmed())) << line.toStdString();
  for (const QString& line : overview.split('\n', Qt::SkipEmptyParts)) EXPECT_FALSE(guide.contains(line.trimmed())) << line.toStdString();
}

TEST_F(MainWindowTest, RulerLabelsAndTheLegendFitAtEveryWidth) {
  Load(db_);
  TimelineView* view = window_->timeline();
  const QFontMetricsF metrics(TimelineFont());
  for (int width : {1600, 1200, 900}) {
    window_->resize(width, 900);
    QApplication::processEvents();
    for (double zoom : {1.0, 0.37, 0.011, 3.3}) {
      view->ZoomBy(zoom);
      TimelineGeometry geometry;
      geometry.viewport = view->viewport()->size();
      for (const auto& [box, text] : RulerLabels(view->scale(), geometry)) {
        SCOPED_TRACE(::testing::Message() << "width " << width << ", label " << text.toStdString());
        EXPECT_GE(box.left(), geometry.lanes_left());
        EXPECT_LE(box.right(), geometry.viewport.width());
        EXPECT_GE(box.width() + 0.01, metrics.horizontalAdvance(text));
      }
    }
    TimelineLegend* legend = window_->findChild<TimelineLegend*>();
    ASSERT_NE(legend, nullptr);
    const QFontMetrics legend_metrics(TimelineFont());
    for (const TimelineLegend::Placed& placed : legend->Layout(legend_metrics)) {
      EXPECT_LE(placed.rect.right(), legend->width()) << placed.text.toStdString();
      EXPECT_LE(legend_metrics.horizontalAdvance(placed.text), placed.rect.width()) << placed.text.toStdString();
    }
  }
}

TEST_F(MainWindowTest, WheelZoomsAboutTheCursorAndKeysFitIterations) {
  Load(db_);
  TimelineView* view = window_->timeline();
  const double before = view->scale().ns_per_px();
  const QPoint at(TimelineGeometry::kLabelWidthPx + 300, 80);
  const double t_at = view->scale().ToNs(300);
  QWheelEvent wheel(at, view->viewport()->mapToGlobal(at), {}, {0, 240}, Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
  QApplication::sendEvent(view->viewport(), &wheel);
  EXPECT_NEAR(view->scale().ns_per_px(), before * 0.64, before * 1e-6);
  EXPECT_NEAR(view->scale().ToNs(300), t_at, 1);
  QTest::keyClick(view, Qt::Key_I);
  EXPECT_EQ(view->current_iteration(), 0);
  QTest::keyClick(view, Qt::Key_N);
  EXPECT_EQ(view->current_iteration(), 1);
  const auto [start, end] = view->runs()[0]->timeline.iterations[1];
  EXPECT_LT(view->scale().left_ns(), static_cast<double>(start - view->align_ns(0)));
  EXPECT_GT(view->scale().right_ns(), static_cast<double>(end - view->align_ns(0)));
}

TEST_F(MainWindowTest, ClickingAKernelShowsDetailsAndItsLaunch) {
  Load(db_);
  fs::remove(db_);  // the full record must come through the run's open reader, not a reopened file
  TimelineView* view = window_->timeline();
  QTest::keyClick(view, Qt::Key_I);  // iteration 1: kernels are wide
  const int32_t stream7 = view->runs()[0]->timeline.FindLane(LaneKind::kStream, DeviceId(0), StreamId(7), ThreadId());
  const RowItems& row = view->runs()[0]->timeline.lanes[static_cast<size_t>(stream7)].rows[0];
  const ItemLocation kernel{0, stream7, 0, 1};  // branch_3x3 of iteration 1
  QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, Centre(kernel));
  EXPECT_EQ(view->selection(), kernel);
  ASSERT_TRUE(view->link().has_value()) << "a kernel's launch call is linked";
  EXPECT_EQ(view->link()->second, kernel);
  EXPECT_EQ(view->runs()[0]->timeline.lanes[static_cast<size_t>(view->link()->first.lane)].kind, LaneKind::kHostApi);
  const QString details = window_->details()->toPlainText();
  EXPECT_TRUE(details.contains("winograd_conv_3x3")) << details.toStdString();
  EXPECT_TRUE(details.contains("branch_3x3")) << details.toStdString();
  EXPECT_TRUE(details.contains("cudaLaunchKernel")) << details.toStdString();
  // The full record arrives from a worker thread.
  EXPECT_TRUE(QTest::qWaitFor([&] { return window_->details()->toPlainText().contains("Grid"); }, 5000));
  (void)row;
}

TEST_F(MainWindowTest, TablesJumpToTheirItems) {
  Load(db_);
  TimelineView* view = window_->timeline();
  QTableWidget* critical = window_->tabs()->critical_table();
  QTest::mouseClick(critical->viewport(), Qt::LeftButton, {}, critical->visualItemRect(critical->item(3, 1)).center());
  ASSERT_TRUE(view->selection().valid());
  const RunTimeline& t = view->runs()[0]->timeline;
  const RowItems& row = t.lanes[static_cast<size_t>(view->selection().lane)].rows[static_cast<size_t>(view->selection().row)];
  const auto i = static_cast<size_t>(view->selection().item);
  EXPECT_EQ(t.strings.Get(StringId(row.label(i))), "sgemm_classifier");
  EXPECT_LE(view->scale().left_ns(), static_cast<double>(row.start_ns(i) - view->align_ns(0)));
  EXPECT_GE(view->scale().right_ns(), static_cast<double>(row.end_ns(i) - view->align_ns(0)));
  QTableWidget* gaps = window_->tabs()->gaps_table();
  ASSERT_GT(gaps->rowCount(), 0);
  QTest::mouseClick(gaps->viewport(), Qt::LeftButton, {}, gaps->visualItemRect(gaps->item(0, 0)).center());
  EXPECT_EQ(t.lanes[static_cast<size_t>(view->selection().lane)].kind, LaneKind::kDeviceIdle);
}

TEST_F(MainWindowTest, DragInTheRulerZoomsToTheRange) {
  Load(db_);
  TimelineView* view = window_->timeline();
  const int x0 = TimelineGeometry::kLabelWidthPx + 200;
  const int x1 = TimelineGeometry::kLabelWidthPx + 400;
  const double t0 = view->scale().ToNs(200);
  const double t1 = view->scale().ToNs(400);
  QTest::mousePress(view->viewport(), Qt::LeftButton, {}, {x0, 10});
  QTest::mouseMove(view->viewport(), {x0 + 50, 10});
  QTest::mouseMove(view->viewport(), {x1, 10});
  QTest::mouseRelease(view->viewport(), Qt::LeftButton, {}, {x1, 10});
  EXPECT_NEAR(view->scale().left_ns(), t0, 2);
  EXPECT_NEAR(view->scale().right_ns(), t1, 2);
}

TEST_F(MainWindowTest, SearchListsAndHighlightsMatches) {
  Load(db_);
  QSignalSpy searched(window_->search_panel(), &SearchPanel::searched);
  QTest::keyClicks(window_->search_box(), "classifier");
  QTest::keyClick(window_->search_box(), Qt::Key_Return);
  ASSERT_TRUE(searched.wait(5000));
  // The op, its three kernels and its three NVTX ranges.
  EXPECT_EQ(window_->search_panel()->results()->count(), 7);
}

TEST_F(MainWindowTest, CompareModeHasADiffTabAgainstTheFirstRun) {
  InsightTabs* tabs = window_->tabs();
  auto diff_tab = [&] {
    for (int i = 0; i < tabs->count(); ++i) {
      if (tabs->tabText(i) == "Diff") return i;
    }
    return -1;
  };
  Load(db_);
  EXPECT_LT(diff_tab(), 0) << "one run: nothing to compare";
  testing::AppendAcceleratedRun(db_);
  Load(db_);
  ASSERT_GE(diff_tab(), 0);
  tabs->setCurrentIndex(diff_tab());
  QTableWidget* table = tabs->diff_table();
  ASSERT_GT(table->rowCount(), 9);
  EXPECT_EQ(table->item(1, 0)->text(), "iteration time");
  EXPECT_EQ(table->item(5, 0)->text(), QString::fromUtf8(GapCauseLabel(analysis::GapCause::kHostLaunchLate).data()));
  // Graph replay on three streams took the launch gaps away: the iteration got shorter.
  EXPECT_TRUE(table->item(1, 3)->text().startsWith(QString::fromUtf8("\u2212"))) << table->item(1, 3)->text().toStdString();
  const QString caption = tabs->diff_caption()->text();
  EXPECT_TRUE(caption.contains("eager") && caption.contains("aot-multi")) << caption.toStdString();
  EXPECT_TRUE(caption.contains("3 iterations")) << caption.toStdString();
  // The numbers are the analysis's, on the runs as loaded.
  const auto& runs = window_->runs();
  ASSERT_EQ(runs.size(), 2u);
  const analysis::RunDiff expected = analysis::DiffSamples(*runs[0]->diff_samples, *runs[1]->diff_samples);
  EXPECT_EQ(table->item(1, 6)->text().toStdString(),
            std::string(analysis::DiffVerdictName(analysis::VerdictOf(expected.iteration))));
}

// Compare mode: every run is shifted so that its own iteration of the number shown starts where the
// first run's does, one above another; the first run keeps its origin (its first iteration, from which
// the ruler and the tables count), and the view holds the longest of them.
TEST_F(MainWindowTest, CompareModeAlignsEachRunAtItsOwnIteration) {
  testing::AppendAcceleratedRun(db_);
  Load(db_);
  const auto& runs = window_->runs();
  ASSERT_EQ(runs.size(), 2u);
  TimelineView* view = window_->timeline();
  for (int k : {1, 2, 0}) {
    view->FitIteration(k);
    EXPECT_EQ(view->align_ns(0), runs[0]->AlignNs());
    const int64_t at = runs[0]->timeline.iterations[static_cast<size_t>(k)].first - runs[0]->AlignNs();
    int64_t longest = 0;
    for (size_t r = 0; r < runs.size(); ++r) {
      const auto& iterations = runs[r]->timeline.iterations;
      ASSERT_GT(iterations.size(), static_cast<size_t>(k));
      EXPECT_EQ(iterations[static_cast<size_t>(k)].first - view->align_ns(r), at) << "run " << r << ", iteration " << k;
      longest = std::max(longest, iterations[static_cast<size_t>(k)].second - iterations[static_cast<size_t>(k)].first);
    }
    EXPECT_LT(view->scale().left_ns(), static_cast<double>(at));
    EXPECT_GT(view->scale().right_ns(), static_cast<double>(at + longest));
  }
}

TEST_F(MainWindowTest, ABrokenFileShowsAMessageBox) {
  const std::string garbage = dir_ + "/garbage.db";
  std::ofstream(garbage) << std::string(4096, 'q');
  QSignalSpy failed(window_.get(), &MainWindow::loadFailed);
  window_->Open({{garbage, std::nullopt}});
  ASSERT_TRUE(failed.wait(10'000));
  QMessageBox* box = nullptr;
  ASSERT_TRUE(QTest::qWaitFor([&] { return (box = window_->findChild<QMessageBox*>()) != nullptr; }, 2000));
  EXPECT_TRUE(box->text().contains(QString::fromStdString(garbage))) << box->text().toStdString();
  EXPECT_TRUE(box->text().contains("not a SQLite database")) << box->text().toStdString();
  box->accept();
  Load(db_);  // the window is still usable
  EXPECT_EQ(window_->timeline()->layout().lane_count(), static_cast<size_t>(facts_.lanes));
}

}  // namespace
}  // namespace nimble::gui
