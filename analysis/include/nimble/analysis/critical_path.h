// Critical path: the longest path through the op DAG when every op weighs its GPU time. No schedule,
// however many streams, finishes faster than this; the paper's Figure 3c compares it with GPU active time.
// One pass in topological order (no recursion); ties go to the lower-numbered predecessor. Pure function.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "nimble/analysis/dag.h"
#include "nimble/core/ids.h"
#include "nimble/core/status.h"

namespace nimble::analysis {

struct CriticalPath {
  int64_t length_ns = 0;   // sum of the weights of the ops on the path
  std::vector<OpId> ops;   // the path, first op first; empty for an empty graph
};

// `weight_ns[v]` is op v's GPU time; fails when the sizes differ or a weight is negative.
StatusOr<CriticalPath> ComputeCriticalPath(const Dag& dag, std::span<const int64_t> weight_ns);

// Op weights of a graph: each op's gpu_time_ns.
std::vector<int64_t> OpWeights(const OpGraph& graph);

}  // namespace nimble::analysis
