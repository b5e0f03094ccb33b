// Generates the viewer benchmark's run database: a long run of many streams of kernels with realistic
// durations and gaps, about 200 distinct kernel names and one NVTX range per iteration, written through
// RunWriter in slices so that generating 10 million kernels needs little memory; optionally an op graph
// whose ops launch the same share of every iteration's kernels. Single-threaded.
#pragma once

#include <cstdint>
#include <string>

#include "nimble/core/status.h"

namespace nimble::bench {

struct BenchRunShape {
  int64_t kernels = 10'000'000;
  int32_t streams = 8;
  int32_t kernels_per_iteration = 8'000;  // over all streams
  int32_t distinct_names = 200;
  bool api_calls = false;                 // one launch call per kernel on the host thread
  int32_t ops = 0;                        // ops of a branching graph, each launching kernels every iteration
  uint64_t seed = 42;
};

// Writes a new database at `path` (replacing one left there) holding one run of `shape`.
Status WriteBenchRun(const std::string& path, const BenchRunShape& shape);

// `path` when it exists and holds a run with shape.kernels kernels; otherwise generates it first.
Status EnsureBenchRun(const std::string& path, const BenchRunShape& shape);

// The viewer benchmarks' command line: --db PATH --kernels N --viewports N --threads N --api 0|1 --ops N.
struct BenchArgs {
  std::string db = "/tmp/nimble_gui_bench_10m.db";
  int64_t kernels = 10'000'000;
  int viewports = 0;
  int threads = 2;
  bool api_calls = false;  // also one launch call per kernel (a second database, unless --db names one)
  int32_t ops = 0;         // also an op graph of this many ops (another database, unless --db names one)
};
BenchArgs ParseBenchArgs(int argc, char** argv, int default_viewports);

}  // namespace nimble::bench
