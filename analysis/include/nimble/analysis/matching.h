// Maximum matching in the bipartite graph of a DAG's edges: a left copy x_u and a right copy y_v of every
// node, and an edge (x_u, y_v) per DAG edge u -> v. Matched edges join ops into chains (paths), so
// n - |M| is the fewest vertex-disjoint paths covering the DAG. Hopcroft-Karp is the default; Boost's
// Edmonds matching is kept as a measured alternative and a test oracle. Pure functions; iterative.
#pragma once

#include <cstdint>
#include <vector>

#include "nimble/analysis/dag.h"

namespace nimble::analysis {

struct Matching {
  std::vector<int32_t> next;  // next[u] = v when (x_u, y_v) is matched, else -1
  std::vector<int32_t> prev;  // prev[v] = u when (x_u, y_v) is matched, else -1
  int32_t size = 0;           // number of matched edges
};

enum class MatchingAlgorithm {
  kHopcroftKarp,   // O(E sqrt(V)), our own iterative implementation
  kBoostEdmonds,   // boost::edmonds_maximum_cardinality_matching on the undirected bipartite graph
};

Matching MaximumMatching(const Dag& dag, MatchingAlgorithm algorithm = MatchingAlgorithm::kHopcroftKarp);

}  // namespace nimble::analysis
