// The scheduling half of nimble-accelerate, with no GPU and no libtorch: per-op GPU times (from a
// nimble-prof run database when given), the stream assignment, the workload the prediction simulates
// and the prediction itself. Pure functions except the database read; thread-safe on distinct inputs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nimble/analysis/dag.h"
#include "nimble/analysis/prediction.h"
#include "nimble/core/op_graph.h"
#include "nimble/core/schedule.h"
#include "nimble/core/status.h"

namespace nimble::cli {

struct Plan {
  analysis::Dag dag;
  std::vector<OpEdge> reduced_edges;  // G'
  int32_t matched_edges = 0;
  StreamAssignment multi;             // Algorithm 1 (capped by max_streams)
  StreamAssignment single;
  int32_t width_streams = 0;          // streams before the cap
  analysis::Workload workload;
  analysis::Prediction prediction;
};

// Op GPU times of the newest run in `db` whose graph has the same ops (count and kinds) as `graph`;
// NotFound when no run matches.
StatusOr<std::vector<int64_t>> OpTimesFromDatabase(const std::string& db, const OpGraph& graph);

// Fraction of the GPU an op occupies when nothing else is known: one thread per output element of its
// (first) output, over all resident threads of the device, in [0.05, 1].
double EstimatedShare(const std::string& output_shapes, int64_t device_threads);

// Assignment, workload (op times in graph.ops[i].gpu_time_ns) and prediction.
StatusOr<Plan> MakePlan(const OpGraph& graph, int32_t max_streams, int64_t device_threads);

}  // namespace nimble::cli
