// The details of the selected item (DescribeItem); with nothing selected, how to select and move around
// (the runs themselves are summarised in InsightTabs, never here). A kernel's full record (grid, block,
// registers...) is read through the run's open database (LoadedRun::records) on a worker thread and
// added when it arrives; a newer selection discards an older answer. UI thread only.
#pragma once

#include <QFutureWatcher>
#include <QTextBrowser>

#include "nimble/core/activity.h"
#include "nimble/core/status.h"
#include "nimble/gui/item_description.h"
#include "nimble/gui/run_load_job.h"

namespace nimble::gui {

class DetailsPane : public QTextBrowser {
  Q_OBJECT

 public:
  explicit DetailsPane(QWidget* parent = nullptr);
  ~DetailsPane() override;

  void SetRuns(LoadedRuns runs);

 public slots:
  void ShowItem(const nimble::gui::ItemLocation& location);

 private:
  struct Fetched {
    uint64_t generation = 0;
    std::string error;
    std::vector<std::pair<std::string, std::string>> fields;
  };
  void ShowGuide();
  void Render();

  LoadedRuns runs_;
  ItemDescription shown_;
  std::vector<std::pair<std::string, std::string>> extra_;
  uint64_t generation_ = 0;
  QFutureWatcher<Fetched> watcher_;
};

}  // namespace nimble::gui
