// Run databases for the viewer's tests, written through RunWriter: a small model run whose lanes,
// critical path and idle gaps (one of each cause) are known exactly, and random traces for comparing
// the viewer's loader with analysis::BuildReport. Single-threaded test code.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "nimble/analysis/idle_gaps.h"
#include "nimble/core/op_graph.h"
#include "nimble/core/trace.h"

namespace nimble::gui::testing {

struct KnownInterval {
  int64_t start_ns = 0;  // absolute
  int64_t end_ns = 0;
};

struct KnownGap {
  KnownInterval interval;
  analysis::GapCause cause = analysis::GapCause::kOther;
};

// What WriteModelRun wrote, for checking what the viewer shows.
struct ModelRunFacts {
  int64_t first_ns = 0;                        // first activity (absolute)
  int64_t last_ns = 0;                         // last activity end
  std::vector<KnownInterval> iterations;       // NVTX "iteration" windows
  std::vector<KnownInterval> critical_kernels; // kernels of critical-path ops
  std::vector<KnownInterval> side_stream_kernels;  // kernels on stream 8 (never critical)
  std::vector<KnownGap> long_gaps;             // gaps of 20 µs or more on GPU 0
  std::vector<std::string> critical_ops;       // op names, in path order
  int lanes = 0;                               // lanes the viewer should show
  int64_t stream_main = 7;
  int64_t stream_side = 8;
};

// One run ("inception_block.pt", mode "eager") of three iterations of a six-op branching block: the
// critical path conv_stem -> branch_3x3 -> concat -> classifier on stream 7, the short branches on
// stream 8; per iteration a late launch or a host copy before the classifier, a synchronization
// between iterations; API calls and NVTX ranges on thread 1001; stored speedups for three modes.
ModelRunFacts WriteModelRun(const std::string& path);

// A second run of the same block in "aot-multi" mode, appended to `path` (compare mode).
void AppendAcceleratedRun(const std::string& path);

// A random trace over two devices and several streams with copies, sets, syncs, API calls (matching
// most kernels), nested NVTX ranges with repeated "step" windows, and a random op graph over its kernels.
struct RandomRun {
  Trace trace;
  OpGraph graph;
  std::vector<KernelAttribution> attribution;
};
RandomRun MakeRandomRun(std::mt19937_64& rng, int kernels);

// Writes `run` as a new database at `path` (replacing one left there).
void WriteRandomRun(const std::string& path, const RandomRun& run);

// A fresh scratch directory for one test, removed by the caller's TearDown.
std::string MakeScratchDir(const std::string& name);

}  // namespace nimble::gui::testing
