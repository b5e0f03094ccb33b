// Logical concurrency: the width of the op DAG (largest set of mutually unreachable ops, the paper's
// "Deg.") and one antichain attaining it, computed without building the transitive closure.
// Pure functions; iterative.
#pragma once

#include <cstdint>
#include <vector>

#include "nimble/analysis/dag.h"
#include "nimble/analysis/matching.h"
#include "nimble/core/ids.h"

namespace nimble::analysis {

struct Concurrency {
  int32_t width = 0;             // size of a maximum antichain
  std::vector<OpId> antichain;   // one maximum antichain, ascending ids
};

// By Dilworth's theorem the width is the fewest chains of the closure covering every op, i.e. a minimum
// flow with a lower bound of one through every op. It starts from the chains of `chains`, which must be a
// matching on `dag`'s edges, and is lowered by a max flow (Dinic) back from sink to source; the residual
// cut then yields the antichain. Passing the transitive reduction and its matching is fastest; any DAG
// with the same reachability gives the same width.
Concurrency ComputeConcurrency(const Dag& dag, const Matching& chains);

// Same, reducing and matching first.
Concurrency ComputeConcurrency(const Dag& dag);

}  // namespace nimble::analysis
