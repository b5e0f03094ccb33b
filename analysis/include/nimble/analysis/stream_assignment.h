// Stream assignment, the paper's Algorithm 1: transitive reduction G', maximum matching on the bipartite
// graph of G' edges, and one stream per chain of matched edges. Ops that are mutually unreachable land
// on different streams (maximum logical concurrency), and the synchronizations are the cross-stream
// edges of G', exactly |E'| - |M| of them, the fewest possible. Pure functions.
#pragma once

#include "nimble/analysis/dag.h"
#include "nimble/analysis/matching.h"
#include "nimble/analysis/transitive_reduction.h"
#include "nimble/core/schedule.h"

namespace nimble::analysis {

// Chains of `matching` (a matching on `reduced`'s edges) become streams, numbered by the topological
// position of their first op; syncs are `reduced`'s edges whose ends are on different streams.
StreamAssignment AssignStreams(const Dag& reduced, const Matching& matching);

// The whole algorithm on any DAG: reduction, Hopcroft-Karp, chains.
StreamAssignment AssignStreams(const Dag& dag, const ReductionOptions& options = {});

// Every op on stream 0 and no synchronization: the single-stream schedule.
StreamAssignment SingleStream(const Dag& dag);

}  // namespace nimble::analysis
