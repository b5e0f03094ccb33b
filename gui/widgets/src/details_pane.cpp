#include "nimble/gui/details_pane.h"

#include <QtConcurrent/QtConcurrentRun>

#include "nimble/gui/palette.h"
#include "nimble/gui/theme.h"
#include "rich_text.h"

namespace nimble::gui {
namespace {

// What the pane says while nothing is selected: how to get details, and the ways around the timeline.
// The run itself is described in the Summary tab.
QString GuideHtml() {
  const std::vector<std::pair<std::string, std::string>> keys = {
      {"Click", "details of a kernel, copy, API call, NVTX range or idle gap"},
      {"Double-click, Z", "zoom to the selected item"},
      {"Wheel, W, S", "zoom about the cursor"},
      {"Drag, A, D", "pan (also Shift+wheel)"},
      {"Shift+drag", "zoom to a range (also a drag in the ruler)"},
      {"I, N, P", "fit this, the next, the previous iteration"},
      {"F", "the whole run"},
      {"Ctrl+F", "search by name"},
      {"Esc", "clear the selection"},
  };
  return QString("<p style='color:%1; margin-bottom:2px'>Nothing selected</p><h3 style='margin-top:0'>Click an item on "
                 "the timeline</h3>%2<p style='color:%1'>The run's summary, its longest idle gaps, its ops and its "
                 "critical path are in the tabs under the timeline.</p>")
      .arg(ToQColor(kDimTextRgb).name(), FieldsTable(keys));
}

}  // namespace

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
  ShowGuide();
}

void DetailsPane::ShowGuide() {
  ++generation_;
  setHtml(GuideHtml());
}

void DetailsPane::ShowItem(const ItemLocation& location) {
  if (!location.valid() || static_cast<size_t>(location.run) >= runs_.size()) {
    ShowGuide();
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
  html += FieldsTable(shown_.fields);
  if (!extra_.empty()) html += "<br>" + FieldsTable(extra_);
  setHtml(html);
}

}  // namespace nimble::gui
