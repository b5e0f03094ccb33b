#include "screenshot.h"

#include <QApplication>
#include <QPixmap>
#include <QTimer>

#include <algorithm>
#include <cstdio>

#include "nimble/gui/item_search.h"
#include "nimble/gui/iteration_detector.h"
#include "nimble/gui/main_window.h"
#include "nimble/gui/timeline_view.h"

namespace nimble::gui {

std::optional<std::pair<double, double>> ParseRange(const std::string& text) {
  // The separator is the first ':' after the first character, so that a leading '-' parses.
  const size_t colon = text.find(':', 1);
  if (colon == std::string::npos) return std::nullopt;
  try {
    size_t used_a = 0;
    size_t used_b = 0;
    const double a = std::stod(text.substr(0, colon), &used_a);
    const double b = std::stod(text.substr(colon + 1), &used_b);
    if (used_a != colon || used_b != text.size() - colon - 1 || !(b > a)) return std::nullopt;
    return std::pair(a, b);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

void FitRequestedIteration(MainWindow& window, int k) {
  const size_t count = window.runs().empty() ? 0 : window.runs().front()->timeline.iterations.size();
  const IterationPick pick = PickIteration(k, count);
  if (!pick.warning.empty()) std::fprintf(stderr, "nimble-gui: warning: %s\n", pick.warning.c_str());
  if (pick.index >= 0) window.timeline()->FitIteration(pick.index);
  else window.timeline()->FitActivity();
}

ScreenshotRunner::ScreenshotRunner(MainWindow& window, ScreenshotOptions options)
    : QObject(&window), window_(window), options_(std::move(options)) {
  connect(&window_, &MainWindow::runsLoaded, this, &ScreenshotRunner::OnLoaded);
  connect(&window_, &MainWindow::loadFailed, this, &ScreenshotRunner::OnFailed);
}

void ScreenshotRunner::OnFailed(const QString& message) {
  std::fprintf(stderr, "nimble-gui: %s\n", message.toStdString().c_str());
  QApplication::exit(1);
}

void ScreenshotRunner::OnLoaded() {
  TimelineView* view = window_.timeline();
  if (options_.iteration) FitRequestedIteration(window_, *options_.iteration);
  if (options_.range_ns) view->SetViewRange(options_.range_ns->first, options_.range_ns->second);
  if (!options_.select.empty() && !window_.runs().empty()) {
    // The first match that starts in view, else the first match.
    const SearchResult found = SearchItems(window_.runs().front()->timeline, options_.select, 100'000);
    const double view_start = view->scale().left_ns() + static_cast<double>(view->align_ns(0));
    const auto visible = std::find_if(found.hits.begin(), found.hits.end(),
                                      [&](const SearchHit& h) { return static_cast<double>(h.start_ns) >= view_start; });
    if (found.hits.empty()) {
      std::fprintf(stderr, "nimble-gui: --select: no item named like \"%s\"\n", options_.select.c_str());
    } else {
      const SearchHit& hit = visible != found.hits.end() ? *visible : found.hits.front();
      view->Select({0, hit.lane, hit.row, hit.item});
    }
  }
  // Let layouts settle and the kernel details (read on a worker thread) arrive before grabbing.
  QTimer::singleShot(400, this, &ScreenshotRunner::Grab);
}

void ScreenshotRunner::Grab() {
  QWidget* target = options_.timeline_only ? static_cast<QWidget*>(window_.timeline()) : static_cast<QWidget*>(&window_);
  const QPixmap pixmap = target->grab();
  if (!pixmap.save(QString::fromStdString(options_.output), "PNG")) {
    std::fprintf(stderr, "nimble-gui: cannot write %s\n", options_.output.c_str());
    QApplication::exit(1);
    return;
  }
  std::fprintf(stderr, "nimble-gui: wrote %s (%dx%d)\n", options_.output.c_str(), pixmap.width(), pixmap.height());
  QApplication::exit(0);
}

}  // namespace nimble::gui
