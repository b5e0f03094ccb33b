// Which op launched each kernel of an in-process run: a kernel's correlation id leads, through CUPTI's
// EXTERNAL_CORRELATION records, to the id pushed around its launch (op id + 1); without one, to the op
// bracket its launching API call lies in. The rest is counted with its GPU time, never dropped silently.
// Pure functions of their inputs.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "nimble/analysis/timeline.h"
#include "nimble/core/op_graph.h"
#include "nimble/core/run.h"
#include "nimble/core/trace.h"

namespace nimble::analysis {

// The host time an op's nodes ran in, on the records' clock.
struct OpBracket {
  OpId op;
  ThreadId thread;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

struct OpAttribution {
  std::vector<KernelAttribution> kernels;  // ascending kernel index; unattributed kernels are absent
  int64_t kernel_count = 0;
  int64_t by_external_id = 0;
  int64_t by_launch_time = 0;
  int64_t unattributed = 0;
  int64_t kernel_ns = 0;                   // summed kernel durations
  int64_t unattributed_ns = 0;
  int64_t foreign_ids = 0;                 // kernels whose id names no op of the graph

  double unattributed_share() const {
    return kernel_ns > 0 ? static_cast<double>(unattributed_ns) / static_cast<double>(kernel_ns) : 0;
  }
  // "attribution.*" entries for the run's stats table (zeros included).
  std::vector<StatEntry> ToStats() const;
};

// `external_kind` selects the records pushed for ops (the collector pushes them as its
// kPushedCorrelationKind) (ids are op + 1, ops 0..num_ops-1); `brackets`
// may be empty (no fallback).
OpAttribution AttributeKernels(const Trace& trace, int32_t num_ops, int32_t external_kind,
                               std::span<const OpBracket> brackets);

// Each op's GPU time (the sum of its kernels' durations) in every window, then the median over the
// windows; a kernel belongs to the window its start lies in. Without windows, the sum over the run.
std::vector<int64_t> MedianOpTimes(const Trace& trace, std::span<const KernelAttribution> attribution,
                                   int32_t num_ops, std::span<const TimeWindow> windows);

}  // namespace nimble::analysis
