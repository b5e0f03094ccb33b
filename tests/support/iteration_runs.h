// Synthetic runs for the run diff tests: in every iteration the named kernels run one after another on
// one stream, each iteration inside an NVTX range "iteration", each kernel launched by op k of a chain
// graph (op_<kernel name>). Durations come from a function, so tests slow one kernel or add jitter.
// Test-only; header-only so that the analysis, workflow and CLI tests share it. Not thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "nimble/core/op_graph.h"
#include "nimble/core/trace.h"

namespace nimble::testing {

struct IterationPlan {
  int iterations = 10;
  std::vector<std::string> kernels = {"gemm", "relu", "softmax"};  // launched in this order
  // Duration of kernel `k` in iteration `it`; 0 leaves it out of that iteration.
  std::function<int64_t(int it, size_t k)> dur_ns = [](int, size_t) { return int64_t{10000}; };
  bool mark_iterations = true;  // false: no NVTX range, the run is one sample
  int64_t gap_ns = 1000;        // between kernels of an iteration
};

struct IterationRun {
  Trace trace;
  OpGraph graph;  // a chain, op k launches kernel k
  std::vector<KernelAttribution> attribution;
};

inline IterationRun MakeIterationRun(const IterationPlan& plan) {
  IterationRun run;
  Trace& t = run.trace;
  const StringId range = t.strings.Intern("iteration");
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    run.graph.ops.push_back({OpId(static_cast<int32_t>(k)), "op_" + plan.kernels[k], "aten::op", "", 0});
    if (k > 0) run.graph.edges.push_back({OpId(static_cast<int32_t>(k - 1)), OpId(static_cast<int32_t>(k))});
  }
  int64_t now_ns = 1000000;
  int64_t correlation = 1;
  for (int it = 0; it < plan.iterations; ++it) {
    const int64_t range_start = now_ns;
    now_ns += 2000;
    for (size_t k = 0; k < plan.kernels.size(); ++k) {
      const int64_t dur = plan.dur_ns(it, k);
      if (dur <= 0) continue;
      KernelRecord kernel;
      kernel.start_ns = now_ns, kernel.end_ns = now_ns + dur;
      kernel.device = DeviceId(0), kernel.stream = StreamId(7), kernel.correlation = CorrelationId(correlation++);
      kernel.name = kernel.short_name = t.strings.Intern(plan.kernels[k]);
      kernel.grid = {4, 1, 1}, kernel.block = {128, 1, 1};
      t.kernels.push_back(kernel);
      run.attribution.push_back({OpId(static_cast<int32_t>(k)), KernelIndex(static_cast<int64_t>(t.kernels.size()) - 1)});
      now_ns = kernel.end_ns + plan.gap_ns;
    }
    now_ns += 1000;
    if (plan.mark_iterations) t.ranges.push_back({range_start, now_ns, ThreadId(1), range, StringId()});
    now_ns += 5000;
  }
  return run;
}

// A deterministic factor in [1 - fraction, 1 + fraction] for (seed, iteration, kernel).
inline double Jitter(uint32_t seed, int it, size_t k, double fraction) {
  std::mt19937 rng(seed * 7919u + static_cast<uint32_t>(it) * 104729u + static_cast<uint32_t>(k));
  return 1.0 + std::uniform_real_distribution<double>(-fraction, fraction)(rng);
}

}  // namespace nimble::testing
