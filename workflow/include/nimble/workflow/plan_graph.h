// The plan step for a graph a front end outside C++ built (the Python training front end's torch.fx
// graph): ops by index, edges between them, and the same analysis::PlanStreams that `report` and the
// accelerate workflow use, returned as plain values. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "nimble/core/op_graph.h"
#include "nimble/core/schedule.h"
#include "nimble/core/status.h"

namespace nimble::workflow {

struct GraphPlanOptions {
  int32_t max_streams = 0;          // 0: no cap
  std::vector<std::string> names;   // names ops in errors (a cycle); empty: "op <i>"
};

struct GraphPlan {
  StreamAssignment multi;           // Algorithm 1, capped by max_streams
  int32_t width_streams = 0;        // streams before the cap
  int32_t logical_concurrency = 0;  // width of the DAG (maximum antichain)
  int32_t reduced_edges = 0;        // |E'|
  int32_t matched_edges = 0;        // |M|
};

// InvalidArgument for an edge to an op outside [0, num_ops), a cycle (naming its ops), a negative
// count or max_streams, or names that do not match the ops.
StatusOr<GraphPlan> PlanGraph(int32_t num_ops, std::span<const OpEdge> edges, const GraphPlanOptions& options = {});

}  // namespace nimble::workflow
