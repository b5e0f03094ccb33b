#include "nimble/gui/run_load_job.h"

#include <QMetaObject>
#include <QtConcurrent/QtConcurrentRun>

namespace nimble::gui {

RunLoadJob::RunLoadJob(QObject* parent) : QObject(parent) {
  connect(&watcher_, &QFutureWatcher<Outcome>::finished, this, [this] {
    const Outcome outcome = watcher_.result();
    if (outcome.error.empty()) emit loaded(outcome.runs);
    else emit failed(QString::fromStdString(outcome.error));
  });
}

RunLoadJob::~RunLoadJob() {
  cancel_ = true;
  watcher_.waitForFinished();
}

void RunLoadJob::Start(std::vector<RunSource> sources) {
  if (running()) return;
  cancel_ = false;
  last_permille_ = -1;
  watcher_.setFuture(QtConcurrent::run([this, sources = std::move(sources)]() -> Outcome {
    // The edge of the worker thread: nothing may escape it (std::bad_alloc on a huge run, say).
    try {
      return Run(sources);
    } catch (const std::exception& e) {
      return {{}, std::string("loading failed: ") + e.what()};
    }
  }));
}

void RunLoadJob::ReportProgress(double fraction, std::string_view stage) {
  const int permille = static_cast<int>(fraction * 1000);
  if (last_permille_.exchange(permille) == permille) return;  // one event per step, not per batch
  const QString text = QString::fromUtf8(stage.data(), static_cast<qsizetype>(stage.size()));
  // Queued onto the job's thread; dropped by Qt if the job is gone by then.
  QMetaObject::invokeMethod(this, [this, permille, text] { emit progress(permille, text); }, Qt::QueuedConnection);
}

RunLoadJob::Outcome RunLoadJob::Run(const std::vector<RunSource>& sources) {
  Outcome out;
  // Resolve every source to its runs first, so that progress can be split between them.
  std::vector<std::pair<std::string, RunId>> runs;
  for (const RunSource& source : sources) {
    auto listed = ListRuns(source.path);
    if (!listed.ok()) return {{}, listed.status().message()};
    if (listed->empty()) return {{}, source.path + ": the database holds no run"};
    for (const RunInfo& info : *listed) {
      if (!source.run || *source.run == info.id.value()) runs.emplace_back(source.path, info.id);
    }
    if (source.run && (runs.empty() || runs.back().first != source.path)) {
      return {{}, source.path + ": no run " + std::to_string(*source.run)};
    }
  }
  if (runs.empty()) return {{}, "nothing to open"};
  for (size_t i = 0; i < runs.size(); ++i) {
    LoadOptions options;
    options.cancel = &cancel_;
    options.diff_samples = runs.size() > 1;  // compare mode has a Diff tab
    const double share = 1.0 / static_cast<double>(runs.size());
    const std::string prefix =
        runs.size() > 1 ? "Run " + std::to_string(i + 1) + " of " + std::to_string(runs.size()) + ": " : "";
    options.progress = [&, i](double fraction, std::string_view stage) {
      ReportProgress((static_cast<double>(i) + fraction) * share, prefix + std::string(stage));
    };
    auto loaded = LoadRun(runs[i].first, runs[i].second, options);
    if (!loaded.ok()) return {{}, loaded.status().message()};
    out.runs.push_back(std::make_shared<const LoadedRun>(std::move(*loaded)));
  }
  return out;
}

}  // namespace nimble::gui
