// How ops are weighed from their kernels: the kernels attributed to each op that start in one iteration
// window (WeighingWindow picks it), and each op's GPU time, their summed durations. The report, the
// prediction's workload and the viewer all weigh ops through WeighOps, from plain kernel spans.
// Pure functions; thread-safe on distinct inputs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "nimble/analysis/time_window.h"
#include "nimble/core/ids.h"
#include "nimble/core/op_graph.h"
#include "nimble/core/status.h"
#include "nimble/core/trace.h"

namespace nimble::analysis {

// A kernel as weighing sees it.
struct KernelSpan {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  DeviceId device;
  StreamId stream;
  int64_t dur_ns() const { return end_ns - start_ns; }
};

struct OpKernels {
  DeviceId device;                  // where the graph ran: the first attributed kernel's device
  std::vector<int64_t> op_time_ns;  // per op: the summed durations of its kernels below
  // Op v's kernels are kernels[offsets[v], offsets[v + 1]), by start (ties: in attribution order).
  std::vector<size_t> offsets;
  std::vector<KernelIndex> kernels;
  std::span<const KernelIndex> of(size_t op) const {
    return std::span(kernels).subspan(offsets[op], offsets[op + 1] - offsets[op]);
  }
};

// The iteration that weighs the ops: the last window (the warmest), or none (the whole run).
std::optional<TimeWindow> WeighingWindow(std::span<const TimeWindow> iterations);

// The kernels each of `num_ops` ops launched, per `attribution`, that start in `window` (all without
// one); `kernels[i]` is kernel index i. Fails, naming the op and kernel, when an attribution names an op
// outside [0, num_ops) or a kernel outside `kernels`.
StatusOr<OpKernels> WeighOps(int32_t num_ops, std::span<const KernelAttribution> attribution,
                             std::span<const KernelSpan> kernels, std::optional<TimeWindow> window);

// The spans of a trace's kernels, by kernel index.
std::vector<KernelSpan> KernelSpans(const Trace& trace);

}  // namespace nimble::analysis
