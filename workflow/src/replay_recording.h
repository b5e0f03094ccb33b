// Recording a captured graph's replays with the in-process collector, for the accelerate workflow's
// aot-single and aot-multi runs: each replay's kernels on the streams the driver ran them on, with
// their graph node. Private to the workflow. In a build without the collector (CUDA and CUPTI):
// Unimplemented. One call at a time per process (it owns CUPTI while it runs).
#pragma once

#include <cstdint>
#include <vector>

#include "nimble/accelerate/aot_graph.h"
#include "nimble/core/run.h"
#include "nimble/core/status.h"
#include "nimble/core/trace.h"

namespace nimble::workflow {

// One captured mode's replays: every record, one kProfileIterationRange range per replay (from just
// before its launch to the end of the wait for it), and the collector's stats.
struct ReplayRecording {
  RunMode mode = RunMode::kAotSingle;
  Trace trace;
  std::vector<StatEntry> stats;
  int32_t iterations = 0;
};

StatusOr<ReplayRecording> RecordReplays(accelerate::AotGraph& graph, RunMode mode, int32_t iterations);

}  // namespace nimble::workflow
