// Reference answers for small op graphs by exhaustive search, to check extracted graphs against:
// the width (most ops no two of which are joined by a path) and the critical path counted in ops.
// Exponential in the op count (at most 20 ops); for tests only. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <set>
#include <tuple>

#include "nimble/core/op_graph.h"

namespace nimble::testing {

int32_t BruteForceWidth(const OpGraph& graph);
int32_t BruteForceCriticalPathOps(const OpGraph& graph);

// The edges as (src, dst, kind) triples, for exact comparisons in EXPECT_EQ.
using EdgeSet = std::set<std::tuple<int32_t, int32_t, EdgeKind>>;
EdgeSet Edges(const OpGraph& graph);

}  // namespace nimble::testing
