// The op graph side of a run for the viewer: per-op GPU time, kernels and streams (measured and
// assigned), and the critical path. Ops are weighed by analysis::WeighOps over the timeline's kernel
// spans (one iteration, as the report weighs them); the path and plan come from analysis. Marks the
// timeline's kernels with their op and builds its critical-path rows, on the loading thread.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "nimble/core/op_graph.h"
#include "nimble/core/schedule.h"
#include "nimble/core/status.h"
#include "nimble/gui/run_timeline.h"

namespace nimble::gui {

struct OpRow {
  OpId op;
  std::string name;
  std::string kind;
  std::string output_shapes;
  int64_t gpu_time_ns = 0;         // its weight: kernel time in the weighing iteration
  int32_t kernels = 0;             // its kernels in the weighing iteration
  StreamId measured_stream;        // stream of its first kernel there; invalid without one
  StreamId assigned_stream;        // the stream assignment's; invalid without an assignment
  int32_t critical_position = -1;  // position on the critical path, -1 when off it
  int64_t first_start_ns = -1;     // its first kernel's start there (relative), -1 without one
  int64_t last_end_ns = -1;        // its last kernel's end there
};

struct OpAnalysis {
  std::vector<OpRow> ops;                // by op id
  std::vector<OpId> critical_path;       // first op first
  int64_t critical_path_ns = 0;
  DeviceId device;                       // where the graph's kernels ran
  std::optional<std::pair<int64_t, int64_t>> window;  // the weighing iteration (relative); none: whole run
  bool assignment_stored = false;        // false: computed here (analysis::PlanStreams)
  int32_t assigned_streams = 0;
  size_t assignment_syncs = 0;
};

// Fails (naming the op or kernel) on an invalid graph or attribution; the caller shows the timeline
// without graph analysis then. Fills timeline.kernel_op and the stream lanes' critical rows.
StatusOr<OpAnalysis> AnalyzeOps(const OpGraph& graph, std::span<const KernelAttribution> attribution,
                                const std::optional<StreamAssignment>& stored_assignment, RunTimeline& timeline);

}  // namespace nimble::gui
