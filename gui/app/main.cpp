// nimble-gui: the timeline viewer of run databases.
//   nimble-gui run.db                         one run (or every run of the file, stacked)
//   nimble-gui baseline.db accelerated.db     compare: runs one above the other, aligned
//   nimble-gui --screenshot out.png run.db [--range START_NS:END_NS] [--iteration K] [--size WxH]
// Exit status: 0, 1 when a database named here cannot be opened (a directory, not a run database...) or
// the picture not written, 2 for bad arguments. --iteration beyond the run's iterations warns, naming
// how many there are, and shows the last.
#include <CLI/CLI.hpp>

#include <QApplication>
#include <QLineEdit>

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "nimble/gui/main_window.h"
#include "nimble/gui/theme.h"
#include "screenshot.h"

namespace {

struct Args {
  std::vector<std::string> databases;
  int64_t run = -1;
  std::string screenshot;
  std::string range;
  int iteration = 0;
  std::string size = "1600x1000";
  std::string select;
  bool timeline_only = false;
};

bool ParseSize(const std::string& text, int& width, int& height) {
  return std::sscanf(text.c_str(), "%dx%d", &width, &height) == 2 && width >= 320 && height >= 240 &&
         width <= 16384 && height <= 16384;
}

// The databases named on the command line: one that cannot be opened ends the program with status 1,
// as it does for nimble-prof (later files, opened from the window, get a message box instead). Once they
// are loaded, the view asked for (--iteration, --select) is shown.
void OpenFromCommandLine(nimble::gui::MainWindow& window, const nimble::gui::ScreenshotOptions& view) {
  using nimble::gui::MainWindow;
  window.SetInteractive(false);
  auto failed = std::make_shared<QMetaObject::Connection>();
  *failed = QObject::connect(&window, &MainWindow::loadFailed, &window, [](const QString& message) {
    std::fprintf(stderr, "nimble-gui: %s\n", message.toStdString().c_str());
    QApplication::exit(1);
  });
  QObject::connect(
      &window, &MainWindow::runsLoaded, &window,
      [&window, view, failed] {
        QObject::disconnect(*failed);
        window.SetInteractive(true);
        if (view.iteration) nimble::gui::FitRequestedIteration(window, *view.iteration);
        if (!view.select.empty()) window.search_box()->setText(QString::fromStdString(view.select));
      },
      Qt::SingleShotConnection);
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  CLI::App cli("nimble-gui: timeline viewer for Nimble run databases (idle gaps, critical path, speedups)");
  cli.add_option("databases", args.databases, "run database(s); several are shown one above the other");
  cli.add_option("--run", args.run, "show only this run id of each database (default: every run)");
  cli.add_option("--screenshot", args.screenshot, "render the window to this PNG once loaded, then exit");
  cli.add_option("--range", args.range, "with --screenshot: view START_NS:END_NS (ruler time, 0 = first iteration)");
  CLI::Option* iteration =
      cli.add_option("--iteration", args.iteration, "open on iteration K (1-based; default: the median iteration)");
  cli.add_option("--size", args.size, "window size WxH (default 1600x1000)");
  cli.add_option("--select", args.select, "select the first item whose name contains this text");
  cli.add_flag("--timeline-only", args.timeline_only, "with --screenshot: grab only the timeline");
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cli.exit(e) == 0 ? 0 : 2;
  }
  int width = 0;
  int height = 0;
  if (!ParseSize(args.size, width, height)) {
    std::fprintf(stderr, "nimble-gui: --size wants WxH, e.g. 1600x1000 (got \"%s\")\n", args.size.c_str());
    return 2;
  }
  nimble::gui::ScreenshotOptions shot;
  shot.output = args.screenshot;
  shot.timeline_only = args.timeline_only;
  shot.select = args.select;
  if (*iteration) shot.iteration = args.iteration;
  if (!args.range.empty() && !(shot.range_ns = nimble::gui::ParseRange(args.range))) {
    std::fprintf(stderr, "nimble-gui: --range wants START_NS:END_NS with START < END (got \"%s\")\n", args.range.c_str());
    return 2;
  }
  const bool screenshot = !args.screenshot.empty();
  if (screenshot && args.databases.empty()) {
    std::fprintf(stderr, "nimble-gui: --screenshot needs a database\n");
    return 2;
  }
  // Headless screenshots need no display: use Qt's offscreen platform unless one was chosen.
  if (screenshot && std::getenv("DISPLAY") == nullptr && std::getenv("QT_QPA_PLATFORM") == nullptr) {
    setenv("QT_QPA_PLATFORM", "offscreen", 1);
  }
  QApplication app(argc, argv);
  nimble::gui::ApplyTheme(app);
  nimble::gui::MainWindow window;
  window.resize(width, height);
  window.SetInteractive(!screenshot);
  if (screenshot) new nimble::gui::ScreenshotRunner(window, shot);
  std::vector<nimble::gui::RunSource> sources;
  for (const std::string& path : args.databases) {
    sources.push_back({path, args.run >= 0 ? std::optional<int64_t>(args.run) : std::nullopt});
  }
  if (!screenshot) OpenFromCommandLine(window, shot);
  window.show();
  window.Open(std::move(sources));
  return app.exec();
}
