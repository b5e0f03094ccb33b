// Transitive reduction of a DAG: the unique smallest subgraph with the same reachability (for a DAG it
// is also the minimum equivalent graph G' of the paper). An edge u -> v is kept unless v is reachable
// from u through a path of two or more edges. Reachability comes from BlockedClosure, so memory stays
// within the budget for any graph size. Pure function; safe to call from several threads on distinct graphs.
#pragma once

#include <cstdint>

#include "nimble/analysis/dag.h"

namespace nimble::analysis {

struct ReductionOptions {
  // Bytes for one block of reachability bitsets. 256 MiB covers a 100 000-op graph in five blocks.
  int64_t closure_budget_bytes = int64_t{256} << 20;
};

// G': same nodes and topological order as `dag`, redundant edges removed.
Dag TransitiveReduction(const Dag& dag, const ReductionOptions& options = {});

}  // namespace nimble::analysis
