// The viewer's window: toolbar (open, fit, iterations, zoom, colouring, search), the timeline with its
// legend, the tables and search results under it (given the height the lanes cannot use), and the
// details and speedup chart (shown when the runs store speedups) beside it. Loads
// through RunLoadJob with a progress bar; a file it cannot open gets a clear message box (or, when not
// interactive, only the loadFailed signal). Wires the widgets together and holds no analysis of its own.
// UI thread only.
#pragma once

#include <QMainWindow>

#include <vector>

#include "nimble/gui/run_load_job.h"

class QAction;
class QLabel;
class QLineEdit;
class QProgressBar;
class QSplitter;

namespace nimble::gui {

class DetailsPane;
class InsightTabs;
class SearchPanel;
class SpeedupChart;
class TimelineLegend;
class TimelineView;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);

  // Starts loading `sources` (replacing what is shown once they are loaded).
  void Open(std::vector<RunSource> sources);
  // false: failures are reported only by loadFailed, with no message box (screenshots, tests).
  void SetInteractive(bool interactive) { interactive_ = interactive; }

  TimelineView* timeline() const { return timeline_; }
  InsightTabs* tabs() const { return tabs_; }
  DetailsPane* details() const { return details_; }
  SpeedupChart* speedup_chart() const { return speedups_; }
  SearchPanel* search_panel() const { return search_; }
  QLineEdit* search_box() const { return search_box_; }
  QProgressBar* progress_bar() const { return progress_; }
  const LoadedRuns& runs() const { return runs_; }

 signals:
  void runsLoaded();
  void loadFailed(const QString& message);

 private:
  void BuildToolbar();
  void BuildPanels();
  void Wire();
  void OnLoaded(const LoadedRuns& runs);
  void OnFailed(const QString& message);
  void UpdateIterationLabel();
  void FitTimelinePane();

  RunLoadJob job_;
  LoadedRuns runs_;
  bool interactive_ = true;
  QSplitter* split_ = nullptr;  // the timeline above the tables
  TimelineView* timeline_ = nullptr;
  TimelineLegend* legend_ = nullptr;
  InsightTabs* tabs_ = nullptr;
  DetailsPane* details_ = nullptr;
  SpeedupChart* speedups_ = nullptr;
  SearchPanel* search_ = nullptr;
  QLineEdit* search_box_ = nullptr;
  QLabel* iteration_label_ = nullptr;
  QLabel* status_ = nullptr;
  QProgressBar* progress_ = nullptr;
};

}  // namespace nimble::gui
