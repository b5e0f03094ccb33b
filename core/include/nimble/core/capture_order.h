// The order in which a branch capture (accelerate's CaptureOptions::branches) runs a multi-stream
// schedule's ops on its one stream. The caching allocator there reuses a block freed by any op for the
// next request that fits, and each reuse across streams orders the new op after the free; so ops that
// run at the same time on different streams should also come close together in the capture, each
// stream's live values then held side by side rather than one stream's reusing another's. Pure function.
#pragma once

#include <cstdint>
#include <vector>

#include "nimble/core/op_graph.h"
#include "nimble/core/schedule.h"

namespace nimble {

// Ops by their start time in a run where op v takes op_ns[v] (one unit each when op_ns is empty): an op
// starts once each op it depends on (the graph's edges) and the op before it on its stream have
// finished; ties in op order.
// Each stream keeps its ops in op order, and every edge points forward. Empty when `assignment` does
// not cover `graph` or an edge points backwards.
std::vector<int32_t> BranchCaptureOrder(const OpGraph& graph, const StreamAssignment& assignment,
                                        const std::vector<int64_t>& op_ns = {});

// The start and end of each op in that run (both empty under the same conditions as the order).
struct BranchCaptureTimes {
  std::vector<int64_t> start_ns;
  std::vector<int64_t> end_ns;
};
BranchCaptureTimes BranchCaptureRun(const OpGraph& graph, const StreamAssignment& assignment,
                                    const std::vector<int64_t>& op_ns = {});

}  // namespace nimble
