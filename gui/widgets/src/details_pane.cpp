#include "nimble/gui/details_pane.h"

#include <QtConcurrent/QtConcurrentRun>

#include "nimble/gui/palette.h"
#include "nimble/gui/ruler_ticks.h"
#include "nimble/gui/theme.h"

namespace nimble::gui {
namespace {

QString Esc(const std::string& s) { return QString::fromStdString(s).toHtmlEscaped(); }

QString Table(const std::vector<std::pair<std::string, std::string>>& fields) {
  QString html = "<table cellspacing='0' cellpadding='2'>";
  for (const auto& [key, value] : fields) {
    html += QString("<tr><td style='color:%1; padding-right:10px'>%2</td><td>%3</td></tr>")
                .arg(ToQColor(kDimTextRgb).name(), Esc(key), Esc(value));
  }
  return html + "</table>";
}

QString Percent(double part, double whole) {
  return whole > 0 ? QString::number(100.0 * part / whole, 'f', 1) + "%" : QString("-");
}

}  // namespace

QString RunSummaryHtml(const LoadedRuns& runs) {
  QString html;
  for (const auto& run : runs) {
    html += QString("<h3>%1</h3>").arg(Esc(run->Label()));
    std::vector<std::pair<std::string, std::string>> f;
    f.emplace_back("Device", run->info.device);
    f.emplace_back("Kernels", std::to_string(run->timeline.kernel_count));
    if (!run->timeline.iteration_text.empty()) {
      f.emplace_back("Iterations", std::to_string(run->timeline.iterations.size()) + " (NVTX \"" +
                                       run->timeline.iteration_text + "\")");
    }
    for (const DeviceIdleSummary& d : run->devices) {
      const double span = static_cast<double>(d.span_end_ns - d.span_start_ns);
      f.emplace_back("GPU " + std::to_string(d.device.value()) + " active",
                     FormatDuration(static_cast<double>(d.active_ns)) + " of " + FormatDuration(span) + " (" +
                         Percent(static_cast<double>(d.active_ns), span).toStdString() + ")");
      for (size_t c = 0; c < analysis::kNumGapCauses; ++c) {
        if (d.totals.count[c] == 0) continue;
        f.emplace_back("  idle: " + std::string(GapCauseLabel(static_cast<analysis::GapCause>(c))),
                       FormatDuration(static_cast<double>(d.totals.dur_ns[c])) + " in " + std::to_string(d.totals.count[c]) +
                           " gaps");
      }
    }
    if (run->ops) {
      f.emplace_back("Ops", std::to_string(run->ops->ops.size()));
      f.emplace_back("Critical path", FormatDuration(static_cast<double>(run->ops->critical_path_ns)) + ", " +
                                          std::to_string(run->ops->critical_path.size()) + " ops");
      f.emplace_back("Stream assignment", std::to_string(run->ops->assigned_streams) + " streams, " +
                                              std::to_string(run->ops->assignment_syncs) + " syncs (" +
                                              (run->ops->assignment_stored ? "stored" : "computed") + ")");
    } else if (!run->graph_problem.empty()) {
      f.emplace_back("Op graph", "not analysed: " + run->graph_problem);
    }
    // Data problems only: informational counts (records collected...) would bury them.
    for (const StatEntry& s : run->stats) {
      if (s.value != 0 && s.severity >= Severity::kWarning) {
        f.emplace_back(std::string("Data ") + SeverityName(s.severity) + ": " + s.name, std::to_string(s.value));
      }
    }
    html += Table(f);
  }
  return html;
}

DetailsPane::DetailsPane(QWidget* parent) : QTextBrowser(parent) {
  setOpenLinks(false);
  setMinimumWidth(260);
  connect(&watcher_, &QFutureWatcher<Fetched>::finished, this, [this] {
    const Fetched f = watcher_.result();
    if (f.generation != generation_) return;  // an older selection's answer
    extra_ = f.fields;
    if (!f.error.empty()) extra_.emplace_back("Record", f.error);
    Render();
  });
}

DetailsPane::~DetailsPane() { watcher_.waitForFinished(); }

void DetailsPane::SetRuns(LoadedRuns runs) {
  runs_ = std::move(runs);
  ShowSummary();
}

void DetailsPane::ShowSummary() {
  ++generation_;
  setHtml("<p style='color:" + ToQColor(kDimTextRgb).name() + "'>Click an item on the timeline for its details.</p>" +
          RunSummaryHtml(runs_));
}

void DetailsPane::ShowItem(const ItemLocation& location) {
  if (!location.valid() || static_cast<size_t>(location.run) >= runs_.size()) {
    ShowSummary();
    return;
  }
  const auto run = runs_[static_cast<size_t>(location.run)];
  shown_ = DescribeItem(*run, location);
  extra_.clear();
  const uint64_t generation = ++generation_;
  Render();
  const ItemRef ref = run->timeline.lanes[static_cast<size_t>(location.lane)]
                          .rows[static_cast<size_t>(location.row)]
                          .ref(static_cast<size_t>(location.item));
  if (ref.kind() != ItemKind::kKernel) return;
  if (run->records == nullptr) return;
  // The full record is in the database only: read it off the UI thread, through the run's open reader.
  watcher_.setFuture(QtConcurrent::run([run, ref, generation]() -> Fetched {
    auto kernel = run->records->LoadKernel(KernelIndex(ref.index()));
    if (!kernel.ok()) return {generation, kernel.status().message(), {}};
    return {generation, {}, DescribeKernelRecord(*kernel, run->records->strings())};
  }));
}

void DetailsPane::Render() {
  QString html = QString("<p style='color:%1; margin-bottom:2px'>%2</p><h3 style='margin-top:0'>%3</h3>")
                     .arg(ToQColor(kDimTextRgb).name(), Esc(shown_.kind), Esc(shown_.title));
  html += Table(shown_.fields);
  if (!extra_.empty()) html += "<br>" + Table(extra_);
  setHtml(html);
}

}  // namespace nimble::gui
