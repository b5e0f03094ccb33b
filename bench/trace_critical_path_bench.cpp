// Scale of the critical path through host and GPU (analysis/trace_critical_path.h) on synthetic
// programs of 10k to 1M kernel launches: one host thread launching onto 4 streams (each launch followed
// by cudaGetLastError), a stream wait every 16 launches and a stream sync every 64. Measures indexing a
// device, the whole run's path, and 1000 window paths; peak RSS as a counter (it only grows: run sizes
// in ascending order, as registered, or one filter per process).
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <algorithm>
#include <random>

#include "nimble/analysis/trace_critical_path.h"

namespace nimble::analysis {
namespace {

double PeakRssMiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // KiB on Linux
}

class Program {
 public:
  explicit Program(int64_t launches) {
    launch_ = trace.strings.Intern("cudaLaunchKernel");
    error_ = trace.strings.Intern("cudaGetLastError");
    wait_ = trace.strings.Intern("cudaStreamWaitEvent");
    sync_ = trace.strings.Intern("cudaStreamSynchronize");
    kernel_ = trace.strings.Intern("kernel");
    for (int64_t i = 0; i < launches; ++i) {
      Launch(static_cast<int>(rng_() % 4));
      Call(error_, 200);
      if (i % 16 == 15) Sync(SyncKind::kStreamWaitEvent, Call(wait_, 800));
      if (i % 64 == 63) Sync(SyncKind::kStreamSynchronize, Call(sync_, std::max<int64_t>(1000, free_ns_[0] + 2000 - now_)));
    }
  }
  int64_t end_ns() const { return now_; }

  Trace trace;

 private:
  const ApiCallRecord& Call(StringId name, int64_t dur_ns) {
    ApiCallRecord a;
    a.start_ns = now_;
    a.end_ns = now_ + dur_ns;
    a.thread = ThreadId(1);
    a.correlation = CorrelationId(++correlation_);
    a.name = name;
    now_ = a.end_ns + 300;
    trace.api_calls.push_back(a);
    return trace.api_calls.back();
  }
  void Launch(int s) {
    const ApiCallRecord& a = Call(launch_, 3000 + static_cast<int64_t>(rng_() % 2000));
    KernelRecord k;
    k.device = DeviceId(0);
    k.context = ContextId(1);
    k.stream = StreamId(10 + s);
    k.correlation = a.correlation;
    k.short_name = kernel_;
    k.start_ns = std::max(a.start_ns + 4000, free_ns_[s] + 500);
    k.end_ns = k.start_ns + 1000 + static_cast<int64_t>(rng_() % 8000);
    free_ns_[s] = k.end_ns;
    trace.kernels.push_back(k);
  }
  void Sync(SyncKind kind, const ApiCallRecord& call) {
    SyncRecord s;
    s.start_ns = call.start_ns;
    s.end_ns = call.end_ns;
    s.context = ContextId(1);
    s.stream = StreamId(10);
    s.correlation = call.correlation;
    s.kind = kind;
    trace.syncs.push_back(s);
  }

  std::mt19937_64 rng_{1};
  StringId launch_, error_, wait_, sync_, kernel_;
  int64_t now_ = 0;
  int64_t correlation_ = 0;
  int64_t free_ns_[4] = {0, 0, 0, 0};
};

void BM_IndexDevice(benchmark::State& state) {
  const Program p(state.range(0));
  for (auto _ : state) {
    TraceCriticalPathFinder finder(p.trace, DeviceId(0));
    benchmark::DoNotOptimize(finder);
  }
  state.counters["records"] = static_cast<double>(p.trace.size());
  state.counters["peak_rss_MiB"] = PeakRssMiB();
}

void BM_WholeRunPath(benchmark::State& state) {
  const Program p(state.range(0));
  const TraceCriticalPathFinder finder(p.trace, DeviceId(0));
  size_t segments = 0;
  for (auto _ : state) segments = finder.Find({0, p.end_ns()}).segments.size();
  state.counters["segments"] = static_cast<double>(segments);
  state.counters["peak_rss_MiB"] = PeakRssMiB();
}

void BM_ThousandWindows(benchmark::State& state) {
  const Program p(state.range(0));
  const TraceCriticalPathFinder finder(p.trace, DeviceId(0));
  const int64_t step = p.end_ns() / 1000;
  for (auto _ : state) {
    for (int64_t w = 0; w < 1000; ++w) benchmark::DoNotOptimize(finder.Find({w * step, (w + 1) * step}));
  }
}

BENCHMARK(BM_IndexDevice)->Arg(10'000)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_WholeRunPath)->Arg(10'000)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ThousandWindows)->Arg(10'000)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace nimble::analysis

BENCHMARK_MAIN();
