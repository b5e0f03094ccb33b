// One run's figures per iteration: the samples a run diff compares. Totals come from the report's
// per-window timeline metrics (never recomputed here); kernel and op times are summed per window with
// the rule MedianOpTimes uses (a kernel belongs to the window its start lies in).
// Invariant: totals and kernel series hold `samples` values (op series too, given attribution).
// Pure functions of their inputs.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "nimble/analysis/idle_gaps.h"
#include "nimble/analysis/report.h"
#include "nimble/core/op_graph.h"
#include "nimble/core/status.h"
#include "nimble/core/trace.h"

namespace nimble::analysis {

// What one side of a diff is made of: the trace, its report (built with the iteration range whose
// windows are the samples), and optionally the op graph with the kernels' attribution to its ops.
// Only the report's timeline part is read: building it without the graph skips the graph analysis,
// and then its primary device is the first with activity (as `nimble-prof diff` and the viewer do).
struct RunDiffInput {
  const Trace* trace = nullptr;                    // required
  const Report* report = nullptr;                  // required: BuildReport of `trace`
  const OpGraph* graph = nullptr;                  // optional
  std::span<const KernelAttribution> attribution;  // optional: without it ops weigh Op::gpu_time_ns, once
};

struct RunSamples {
  DeviceId device;             // the report's primary device: totals and kernels are this device's
  int32_t samples = 0;         // iteration windows, or 1: the whole run when there are none
  bool whole_run = false;      // no iteration windows; the one sample is the run's activity span
  std::vector<int64_t> iteration_ns;  // window length (activity span of the whole run)
  std::vector<int64_t> active_ns;     // GPU active time
  std::vector<int64_t> idle_ns;       // window length - active time
  std::array<std::vector<int64_t>, kNumGapCauses> idle_by_cause_ns;
  // By kernel name (the demangled name, else the short one): the GPU time (sum of durations) of its
  // kernels in each sample. Names with a kernel in some sample.
  std::map<std::string, std::vector<int64_t>> kernels;
  // By op name, with an op graph. With attribution, one value per sample; without, Op::gpu_time_ns as
  // the one value (its series then has one value whatever `samples` says).
  std::map<std::string, std::vector<int64_t>> ops;
  bool has_graph = false;
};

// FailedPrecondition when the report shows no GPU activity; InvalidArgument without trace or report.
StatusOr<RunSamples> SampleRun(const RunDiffInput& input);

}  // namespace nimble::analysis
