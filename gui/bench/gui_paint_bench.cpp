// The viewer's paint path with Qt (offscreen unless there is a display): loads the generated 10-million-
// kernel run, paints the timeline once (the first paint: load + lanes + draw lists + QPainter into a
// 1920 px wide lanes area), then repaints random pan/zoom viewports and reports median and 99th
// percentile, wall and thread CPU, and the peak resident memory. --height sets the view's height: at
// 1000 px the rows grow to fill it (busy chart, two-line kernel labels); at 240 they keep the compact
// heights, which isolates what filling the height costs.
//   nimble_gui_paint_bench [--db PATH] [--kernels N] [--viewports N] [--threads N] [--height PX]
#include <sys/resource.h>
#include <time.h>

#include <QApplication>
#include <QImage>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "gui_bench_data.h"
#include "nimble/gui/run_loader.h"
#include "nimble/gui/theme.h"
#include "nimble/gui/timeline_view.h"

namespace {

using Clock = std::chrono::steady_clock;

double Ms(Clock::time_point from) { return std::chrono::duration<double, std::milli>(Clock::now() - from).count(); }

double ThreadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

double ProcessCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

double PeakRssMiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

double Percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
}

using Args = nimble::bench::BenchArgs;

Args Parse(int argc, char** argv) { return nimble::bench::ParseBenchArgs(argc, argv, 300); }

int ViewHeight(int argc, char** argv) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--height") return std::max(200, std::atoi(argv[i + 1]));
  }
  return 1000;
}

// Repaints of random viewports: zoom levels from the whole run down to 1e-7 of it.
void TimeRepaints(nimble::gui::TimelineView& view, QImage& image, int viewports) {
  const auto& t = view.runs()[0]->timeline;
  const double span = static_cast<double>(t.end_ns - t.start_ns);
  const double origin = static_cast<double>(t.start_ns - view.align_ns(0));
  std::mt19937_64 rng(7);
  std::vector<double> wall_ms;
  std::vector<double> cpu_ms;
  for (int i = 0; i < viewports; ++i) {
    const double visible = span * std::pow(10.0, -std::uniform_real_distribution<double>(0, 7)(rng));
    const double left = origin + std::uniform_real_distribution<double>(0, std::max(span - visible, 1.0))(rng);
    view.SetViewRange(left, left + visible);
    const Clock::time_point t0 = Clock::now();
    const double c0 = ThreadCpuMs();
    view.viewport()->render(&image);
    cpu_ms.push_back(ThreadCpuMs() - c0);
    wall_ms.push_back(Ms(t0));
  }
  std::printf("repaint of random pan/zoom viewports (%d, whole run down to 1e-7 of it): wall median %.2f ms, p99 %.2f ms, "
              "max %.2f ms; thread CPU median %.2f ms, p99 %.2f ms, max %.2f ms\n",
              viewports, Percentile(wall_ms, 0.5), Percentile(wall_ms, 0.99),
              *std::max_element(wall_ms.begin(), wall_ms.end()), Percentile(cpu_ms, 0.5), Percentile(cpu_ms, 0.99),
              *std::max_element(cpu_ms.begin(), cpu_ms.end()));
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = Parse(argc, argv);
  if (std::getenv("DISPLAY") == nullptr && std::getenv("QT_QPA_PLATFORM") == nullptr) setenv("QT_QPA_PLATFORM", "offscreen", 1);
  nimble::bench::BenchRunShape shape;
  shape.kernels = args.kernels;
  if (nimble::Status s = nimble::bench::EnsureBenchRun(args.db, shape); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  QApplication app(argc, argv);
  nimble::gui::ApplyTheme(app);
  nimble::gui::TimelineView view;
  view.resize(nimble::gui::TimelineGeometry::kLabelWidthPx + 1920, ViewHeight(argc, argv));
  view.show();
  QApplication::processEvents();

  const Clock::time_point start = Clock::now();
  const double cpu_start = ProcessCpuMs();
  nimble::gui::LoadOptions options;
  options.kernel_threads = args.threads;
  auto run = nimble::gui::LoadRun(args.db, nimble::RunId(1), options);
  if (!run.ok()) {
    std::fprintf(stderr, "%s\n", run.status().ToString().c_str());
    return 1;
  }
  const double load_ms = Ms(start);
  const nimble::gui::LoadTimings timings = run->timings;
  view.SetRuns({std::make_shared<const nimble::gui::LoadedRun>(std::move(*run))});
  QImage image(view.viewport()->size(), QImage::Format_ARGB32_Premultiplied);
  view.viewport()->render(&image);
  const double first_ms = Ms(start);
  std::printf("first paint (Qt, %dx%d viewport, lanes 1920 px): %.0f ms wall (load %.0f ms [kernels %.0f, lanes %.0f, "
              "gaps %.0f], colours + layout + paint %.0f ms), %.0f ms process CPU\n",
              view.viewport()->width(), view.viewport()->height(), first_ms, load_ms, timings.kernels_ms,
              timings.lanes_ms, timings.gaps_ms, first_ms - load_ms, ProcessCpuMs() - cpu_start);

  TimeRepaints(view, image, args.viewports);
  std::printf("peak RSS: %.0f MiB\n", PeakRssMiB());
  return 0;
}
