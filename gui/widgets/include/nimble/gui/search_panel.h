// Search by kernel, API, NVTX or op name: matches are found on a worker thread (SearchItems over every
// run, and the op tables), listed by time, highlighted on the timeline, and a click jumps to one.
// A newer search discards an older one's answer. UI thread only.
#pragma once

#include <QFutureWatcher>
#include <QWidget>

#include "nimble/gui/item_search.h"
#include "nimble/gui/run_load_job.h"

class QLabel;
class QListWidget;

namespace nimble::gui {

struct ItemLocation;

class SearchPanel : public QWidget {
  Q_OBJECT

 public:
  static constexpr size_t kMaxHits = 500;

  explicit SearchPanel(QWidget* parent = nullptr);
  ~SearchPanel() override;
  void SetRuns(LoadedRuns runs);
  QListWidget* results() const { return list_; }
  bool busy() const { return watcher_.isRunning(); }

 public slots:
  void Search(const QString& text);

 signals:
  void hitsChanged(int run, const std::vector<nimble::gui::SearchHit>& hits);
  void itemRequested(const nimble::gui::ItemLocation& location);
  void rangeRequested(int run, qint64 start_ns, qint64 end_ns, int lane);
  void searched(int matches);

 private:
  struct Found {
    uint64_t generation = 0;
    std::vector<SearchResult> per_run;
  };
  void Show(const Found& found, const QString& text);

  LoadedRuns runs_;
  QLabel* status_ = nullptr;
  QListWidget* list_ = nullptr;
  uint64_t generation_ = 0;
  QString text_;
  QFutureWatcher<Found> watcher_;
};

}  // namespace nimble::gui
