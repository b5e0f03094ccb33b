// The viewer's model on a large run, without Qt: generates (once) a database of 10 million kernels on
// 8 streams, then times the "first paint" path - open, load, build lanes, gaps, layout and the draw lists
// of every row for the whole run at 1920 px - and the draw lists of random pan/zoom viewports, with the
// peak resident memory. A timed program rather than Google Benchmark: the load runs once, cold, and the
// viewport times need their median and 99th percentile.
//   nimble_gui_timeline_bench [--db PATH] [--kernels N] [--viewports N] [--threads N] [--api 1] [--ops N]
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "gui_bench_data.h"
#include "nimble/gui/draw_list_builder.h"
#include "nimble/gui/lane_layout.h"
#include "nimble/gui/run_loader.h"

namespace nimble::bench {
namespace {

using Clock = std::chrono::steady_clock;

double PeakRssMiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

double Ms(Clock::time_point from) { return std::chrono::duration<double, std::milli>(Clock::now() - from).count(); }

// CPU time of this thread: on a shared machine, wall time also counts other processes' time slices.
double ThreadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

using Args = BenchArgs;

Args Parse(int argc, char** argv) { return ParseBenchArgs(argc, argv, 1000); }

// Draw lists of every row of the run on `grid` (times relative to the run's base); returns the spans.
size_t BuildAll(const gui::LoadedRun& run, const gui::PixelGrid& grid, std::vector<gui::DrawSpan>& spans) {
  const gui::DrawListBuilder builder;
  size_t total = 0;
  for (const gui::Lane& lane : run.timeline.lanes) {
    for (const gui::RowItems& row : lane.rows) {
      builder.Build(row, grid, spans);
      total += spans.size();
    }
    for (const gui::RowItems& row : lane.critical) {
      builder.Build(row, grid, spans);
      total += spans.size();
    }
  }
  return total;
}

double Percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
}

// Draw lists of every row for random viewports: zoom levels from the whole run down to 1e-7 of it.
void TimeViewports(const gui::LoadedRun& run, int viewports, size_t rows) {
  std::mt19937_64 rng(7);
  const double span_ns = static_cast<double>(run.timeline.end_ns - run.timeline.start_ns);
  std::vector<gui::DrawSpan> spans;
  std::vector<double> times_ms;
  std::vector<double> cpu_ms;
  size_t max_spans = 0;
  for (int i = 0; i < viewports; ++i) {
    const double visible_ns = span_ns * std::pow(10.0, -std::uniform_real_distribution<double>(0, 7)(rng));
    const double left = static_cast<double>(run.timeline.start_ns) +
                        std::uniform_real_distribution<double>(0, std::max(span_ns - visible_ns, 1.0))(rng);
    const gui::TimeScale scale(left, visible_ns / 1920, 1920);
    const Clock::time_point t0 = Clock::now();
    const double cpu0 = ThreadCpuMs();
    max_spans = std::max(max_spans, BuildAll(run, scale.Grid(), spans));
    cpu_ms.push_back(ThreadCpuMs() - cpu0);
    times_ms.push_back(Ms(t0));
  }
  std::printf("viewport draw lists (1920 px, all %zu rows, %d viewports, at most %zu spans): wall median %.3f ms, "
              "p99 %.3f ms, max %.3f ms; thread CPU median %.3f ms, p99 %.3f ms, max %.3f ms\n",
              rows, viewports, max_spans, Percentile(times_ms, 0.5), Percentile(times_ms, 0.99),
              *std::max_element(times_ms.begin(), times_ms.end()), Percentile(cpu_ms, 0.5), Percentile(cpu_ms, 0.99),
              *std::max_element(cpu_ms.begin(), cpu_ms.end()));
}

int Run(const Args& args) {
  BenchRunShape shape;
  shape.kernels = args.kernels;
  shape.api_calls = args.api_calls;
  shape.ops = args.ops;
  const Clock::time_point gen = Clock::now();
  if (Status s = EnsureBenchRun(args.db, shape); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  const std::string graph = args.ops > 0 ? ", a graph of " + std::to_string(args.ops) + " ops" : "";
  std::printf("database: %s (%lld kernels, %d streams%s%s; ready in %.1f s)\n", args.db.c_str(),
              static_cast<long long>(args.kernels), shape.streams, args.api_calls ? ", a launch call each" : "",
              graph.c_str(), Ms(gen) / 1000);
  const double rss_before = PeakRssMiB();

  const Clock::time_point start = Clock::now();
  gui::LoadOptions options;
  options.kernel_threads = args.threads;
  auto run = gui::LoadRun(args.db, RunId(1), options);
  if (!run.ok()) {
    std::fprintf(stderr, "%s\n", run.status().ToString().c_str());
    return 1;
  }
  const double load_ms = Ms(start);
  const gui::RunTimeline* timelines[] = {&run->timeline};
  gui::LaneLayout layout;
  layout.Build(timelines, false);
  const gui::TimeScale whole(static_cast<double>(run->timeline.start_ns),
                             static_cast<double>(run->timeline.end_ns - run->timeline.start_ns) / 1920, 1920);
  std::vector<gui::DrawSpan> spans;
  const size_t first_spans = BuildAll(*run, whole.Grid(), spans);
  const double first_paint_ms = Ms(start);
  const gui::LoadTimings& t = run->timings;
  std::printf("first paint (model): %.0f ms = load %.0f ms [open %.0f, host tables %.0f, kernels %.0f, lanes %.0f, "
              "gaps %.0f, ops %.0f] + layout and draw lists %.1f ms (%zu spans, %zu lanes)\n",
              first_paint_ms, load_ms, t.open_ms, t.host_tables_ms, t.kernels_ms, t.lanes_ms, t.gaps_ms, t.ops_ms,
              first_paint_ms - load_ms, first_spans, layout.lane_count());
  std::printf("model memory: %.0f MiB held by the timeline\n", static_cast<double>(run->timeline.bytes()) / (1 << 20));

  TimeViewports(*run, args.viewports, layout.rows().size());
  std::printf("peak RSS: %.0f MiB (%.0f MiB before loading)\n", PeakRssMiB(), rss_before);
  return 0;
}

}  // namespace
}  // namespace nimble::bench

int main(int argc, char** argv) { return nimble::bench::Run(nimble::bench::Parse(argc, argv)); }
