// Headless rendering for docs and tests: once the window's runs are loaded, sets the view (a time range,
// an iteration, a selected item), grabs the window or only the timeline, writes the PNG and quits the
// application with 0; a load or write failure prints a message on stderr and quits with 1. Also the
// --iteration choice that the interactive window shares. UI thread.
#pragma once

#include <QObject>
#include <QString>

#include <optional>
#include <string>
#include <utility>

namespace nimble::gui {

class MainWindow;

struct ScreenshotOptions {
  std::string output;                                // PNG path
  std::optional<std::pair<double, double>> range_ns; // view times (ruler: 0 = first iteration start)
  std::optional<int> iteration;                      // 1-based; fits that iteration
  std::string select;                                // select the first item whose name contains this
  bool timeline_only = false;                        // grab the timeline widget, not the whole window
};

// Parses "START:END" in ns (each may be negative); nullopt when malformed or empty.
std::optional<std::pair<double, double>> ParseRange(const std::string& text);

// Fits iteration `k` (1-based, as --iteration) of the first run. Out of range, or in a run without
// iterations, it says so on stderr, naming how many there are, and shows the nearest one (or the run).
void FitRequestedIteration(MainWindow& window, int k);

class ScreenshotRunner : public QObject {
  Q_OBJECT

 public:
  ScreenshotRunner(MainWindow& window, ScreenshotOptions options);

 private:
  void OnLoaded();
  void OnFailed(const QString& message);
  void Grab();

  MainWindow& window_;
  ScreenshotOptions options_;
};

}  // namespace nimble::gui
