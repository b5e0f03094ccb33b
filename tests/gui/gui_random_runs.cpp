// Random runs for comparing the viewer's loader with the analysis library (see gui_test_runs.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "gui_test_runs.h"
#include "nimble/store/run_writer.h"

namespace nimble::gui::testing {
namespace {

int64_t Uniform(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

// Kernels on two devices and three streams, overlapping across streams, some empty.
void AddKernels(std::mt19937_64& rng, int count, Trace& trace) {
  int64_t t = 5'000'000'000;
  for (int i = 0; i < count; ++i) {
    KernelRecord k;
    t += Uniform(rng, 0, 3000);
    k.start_ns = t;
    k.end_ns = t + (Uniform(rng, 0, 9) == 0 ? 0 : Uniform(rng, 1, 5000));
    k.device = DeviceId(static_cast<int32_t>(Uniform(rng, 0, 1)));
    k.stream = StreamId(Uniform(rng, 1, 3));
    k.correlation = CorrelationId(10 + i);
    k.name = k.short_name = trace.strings.Intern("kernel_" + std::to_string(Uniform(rng, 0, 9)));
    trace.kernels.push_back(k);
  }
}

// Launch calls for most kernels (some after the gap before their kernel began), copies of every
// direction, sets, syncs.
void AddHostActivity(std::mt19937_64& rng, Trace& trace) {
  const StringId launch = trace.strings.Intern("cudaLaunchKernel");
  for (const KernelRecord& k : trace.kernels) {
    if (Uniform(rng, 0, 4) == 0) continue;
    const int64_t start = k.start_ns - Uniform(rng, -2000, 6000);
    trace.api_calls.push_back({start, start + Uniform(rng, 100, 2000), ApiKind::kRuntime, ThreadId(Uniform(rng, 1, 2)),
                               1, k.correlation, launch, 1, 0});
  }
  const int64_t first = trace.kernels.front().start_ns;
  const int64_t last = trace.kernels.back().end_ns;
  for (int i = 0; i < static_cast<int>(trace.kernels.size() / 10) + 1; ++i) {
    MemcpyRecord m;
    m.start_ns = Uniform(rng, first, last);
    m.end_ns = m.start_ns + Uniform(rng, 0, 4000);
    m.device = DeviceId(static_cast<int32_t>(Uniform(rng, 0, 1)));
    m.stream = StreamId(Uniform(rng, 1, 3));
    m.correlation = CorrelationId(100'000 + i);
    m.copy_kind = static_cast<CopyKind>(Uniform(rng, 0, 10));
    trace.memcpys.push_back(m);
    MemsetRecord s;
    s.start_ns = Uniform(rng, first, last);
    s.end_ns = s.start_ns + Uniform(rng, 0, 2000);
    s.device = m.device;
    s.stream = m.stream;
    s.correlation = CorrelationId(200'000 + i);
    trace.memsets.push_back(s);
    SyncRecord y;
    y.start_ns = Uniform(rng, first, last);
    y.end_ns = y.start_ns + Uniform(rng, 0, 3000);
    y.device = DeviceId(static_cast<int32_t>(Uniform(rng, -1, 1)));
    trace.syncs.push_back(y);
    if (i % 4 == 0) {  // a whole CUDA graph recorded at graph level
      GraphLaunchRecord g;
      g.start_ns = Uniform(rng, first, last);
      g.end_ns = g.start_ns + Uniform(rng, 0, 20000);
      g.device = m.device;
      g.stream = StreamId(Uniform(rng, 1, 3));
      g.correlation = CorrelationId(300'000 + i);
      g.graph_id = Uniform(rng, 1, 9);
      trace.graph_launches.push_back(g);
    }
  }
}

// Four "step" windows over the run, and nested ranges of random texts inside them.
void AddRanges(std::mt19937_64& rng, Trace& trace) {
  const int64_t first = trace.kernels.front().start_ns;
  const int64_t span = std::max<int64_t>(trace.kernels.back().end_ns - first, 8);
  const StringId step = trace.strings.Intern("step");
  for (int64_t s = 0; s < 4; ++s) {
    const int64_t start = first + span * s / 4;
    trace.ranges.push_back({start, start + span / 4 - 1, ThreadId(1), step, StringId()});
    for (int j = 0; j < 3; ++j) {
      const int64_t a = Uniform(rng, start, start + span / 4 - 2);
      trace.ranges.push_back({a, Uniform(rng, a, start + span / 4 - 1), ThreadId(1),
                              trace.strings.Intern("range_" + std::to_string(j)), StringId()});
    }
  }
}

}  // namespace

RandomRun MakeRandomRun(std::mt19937_64& rng, int kernels) {
  RandomRun run;
  AddKernels(rng, kernels, run.trace);
  AddHostActivity(rng, run.trace);
  AddRanges(rng, run.trace);
  const int32_t ops = std::max(1, kernels / 3);
  for (int32_t v = 0; v < ops; ++v) run.graph.ops.push_back({OpId(v), "op_" + std::to_string(v), "kind", "", 0});
  for (int32_t v = 1; v < ops; ++v) {
    for (int e = 0; e < 2; ++e) {
      const auto u = static_cast<int32_t>(Uniform(rng, 0, v - 1));
      if (Uniform(rng, 0, 2) != 0) run.graph.edges.push_back({OpId(u), OpId(v), EdgeKind::kData});
    }
  }
  for (int64_t k = 0; k < kernels; ++k) {
    if (Uniform(rng, 0, 5) != 0) run.attribution.push_back({OpId(static_cast<int32_t>(Uniform(rng, 0, ops - 1))), KernelIndex(k)});
  }
  return run;
}

void WriteRandomRun(const std::string& path, const RandomRun& run) {
  std::filesystem::remove(path);
  RunInfo info;
  info.model = "random";
  info.mode = RunMode::kEager;
  auto writer = store::RunWriter::Create(path, info);
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  ASSERT_TRUE((*writer)->AppendTrace(run.trace).ok());
  ASSERT_TRUE((*writer)->WriteGraph(run.graph, run.attribution).ok());
  ASSERT_TRUE((*writer)->Commit().ok());
}

}  // namespace nimble::gui::testing
