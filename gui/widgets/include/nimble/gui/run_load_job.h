// Loads the runs the viewer opens on a worker thread (QtConcurrent), never on the UI thread: progress,
// the loaded runs and errors arrive as signals on the thread that owns the job. Destroying the job
// cancels a load in progress and waits for it. One load at a time per job.
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QString>

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nimble/gui/loaded_run.h"
#include "nimble/gui/run_loader.h"

namespace nimble::gui {

// A database and the run to show, or every run it holds (compare mode).
struct RunSource {
  std::string path;
  std::optional<int64_t> run;
};

using LoadedRuns = std::vector<std::shared_ptr<const LoadedRun>>;

class RunLoadJob : public QObject {
  Q_OBJECT

 public:
  explicit RunLoadJob(QObject* parent = nullptr);
  ~RunLoadJob() override;

  // Starts loading `sources` in order; ignored while a load runs.
  void Start(std::vector<RunSource> sources);
  bool running() const { return watcher_.isRunning(); }
  void Cancel() { cancel_ = true; }

 signals:
  void progress(int permille, const QString& stage);
  void loaded(const nimble::gui::LoadedRuns& runs);
  void failed(const QString& message);

 private:
  struct Outcome {
    LoadedRuns runs;
    std::string error;
  };
  Outcome Run(const std::vector<RunSource>& sources);
  void ReportProgress(double fraction, std::string_view stage);

  QFutureWatcher<Outcome> watcher_;
  std::atomic<bool> cancel_{false};
  std::atomic<int> last_permille_{-1};
};

}  // namespace nimble::gui
