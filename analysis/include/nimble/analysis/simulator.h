// Discrete-event simulation of one run of a schedule: ops on streams, each op a sequence of kernels with
// a duration measured alone and a GPU share (occupancy.h); predicts the latency. Pure and deterministic.
#pragma once

#include <cstdint>
#include <vector>

#include "nimble/analysis/dag.h"
#include "nimble/analysis/gpu_sharing.h"
#include "nimble/core/schedule.h"
#include "nimble/core/status.h"

namespace nimble::analysis {

struct SimKernel {
  int64_t dur_ns = 0;       // time alone on the GPU
  double gpu_share = 1.0;   // fraction of the GPU it occupies, in [0, 1]
  double wave_share = -1;   // the same averaged over its waves (occupancy.h); < 0: not known, gpu_share
  double crowded_slowdown = 1.0;  // how much slower it runs while another kernel runs (gpu_sharing.h)
};

// What launching costs in one execution mode.
struct LaunchCosts {
  int64_t start_ns = 0;            // before anything is issued (a graph launch call)
  int64_t host_per_kernel_ns = 0;  // host time to issue one kernel (eager: framework plus launch API)
  int64_t host_per_event_ns = 0;   // host time for one event record or stream wait (eager multi-stream)
  int64_t gpu_per_kernel_ns = 0;   // GPU-side gap from a kernel's dependencies ending to its start
  int64_t sync_latency_ns = 0;     // extra delay on a cross-stream dependency
};

struct SimResult {
  int64_t latency_ns = 0;             // from time 0 (the host starts) to the last kernel's end
  std::vector<int64_t> op_start_ns;   // first kernel's start, per op
  std::vector<int64_t> op_end_ns;     // last kernel's end, per op
  int32_t max_running_kernels = 0;
};

// The host issues ops in topological order, paying per kernel and per event; a kernel starts once issued,
// its stream's previous kernel has ended and, for an op's first kernel, every cross-stream sync source has
// ended plus a latency. Running kernels share the GPU: while their shares sum to S <= 1 each runs at full
// speed. Above that, with `Dispatch::kShared` each runs at 1/S (processor sharing); with `kInOrder` the
// kernels in the order they started each take min(share, what is left) and run at that over their share,
// a kernel with nothing left waiting. Either way the GPU's total throughput stays capped. Only
// `gpu_share` is read: the caller chooses which share it holds (PredictMultiStream puts the effective
// wave share there for in-order dispatch). A kernel counts as started, and running, from its release,
// also while it waits for a share.
// `op_kernels[v]` are op v's kernels in launch order (an op without kernels takes no time and no launch).
// `schedule.syncs` must point forward in `dag`'s topological order and, with stream order, imply every
// dependency (AssignStreams and SingleStream guarantee both). Errors name the op at fault.
StatusOr<SimResult> Simulate(const Dag& dag, const std::vector<std::vector<SimKernel>>& op_kernels,
                             const StreamAssignment& schedule, const LaunchCosts& costs,
                             Dispatch dispatch = Dispatch::kShared);

}  // namespace nimble::analysis
