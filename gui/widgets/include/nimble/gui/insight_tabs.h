// The tables under the timeline: a run summary, the longest idle gaps, ops by GPU time (with measured
// and assigned streams) and the critical path. Clicking a row asks the timeline to jump to its item.
// In compare mode a selector chooses the run the tables describe, and a Diff tab compares that run
// (the second when the first is chosen) against the first (DescribeDiff). UI thread only.
#pragma once

#include <QTabWidget>

#include "nimble/gui/item_description.h"
#include "nimble/gui/run_load_job.h"

class QComboBox;
class QLabel;
class QTableWidget;
class QTextBrowser;

namespace nimble::gui {

class InsightTabs : public QTabWidget {
  Q_OBJECT

 public:
  // Rows listed per table at most (a training graph can have 100 000 ops).
  static constexpr int kMaxRows = 2000;

  explicit InsightTabs(QWidget* parent = nullptr);
  void SetRuns(LoadedRuns runs);
  int current_run() const { return run_; }
  QTableWidget* gaps_table() const { return gaps_; }
  QTableWidget* ops_table() const { return ops_; }
  QTableWidget* critical_table() const { return critical_; }
  // The Diff tab's table and its caption (title, rule, notes); the tab is shown with two runs or more.
  QTableWidget* diff_table() const { return diff_; }
  QLabel* diff_caption() const { return diff_caption_; }

 signals:
  void itemRequested(const nimble::gui::ItemLocation& location);
  void rangeRequested(int run, qint64 start_ns, qint64 end_ns, int lane);

 private:
  void ShowRun(int run);
  void FillGaps(const LoadedRun& run);
  void FillOps(const LoadedRun& run);
  void FillCriticalPath(const LoadedRun& run);
  void FillDiff();
  void Jump(QTableWidget* table, int row);
  // The kernel item of op `op` at its first kernel in the weighing iteration.
  ItemLocation OpKernel(int run, int32_t op) const;

  LoadedRuns runs_;
  int run_ = 0;
  QComboBox* run_selector_ = nullptr;
  QTextBrowser* summary_ = nullptr;
  QTableWidget* gaps_ = nullptr;
  QTableWidget* ops_ = nullptr;
  QTableWidget* critical_ = nullptr;
  QWidget* diff_page_ = nullptr;
  QLabel* diff_caption_ = nullptr;
  QTableWidget* diff_ = nullptr;
};

}  // namespace nimble::gui
