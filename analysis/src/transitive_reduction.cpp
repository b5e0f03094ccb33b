#include "nimble/analysis/transitive_reduction.h"

#include <vector>

#include "nimble/analysis/reachability.h"

namespace nimble::analysis {

Dag TransitiveReduction(const Dag& dag, const ReductionOptions& options) {
  std::vector<uint8_t> keep(static_cast<size_t>(dag.num_edges()), 1);
  BlockedClosure closure(dag, options.closure_budget_bytes);
  for (int32_t block = 0; block < closure.num_blocks(); ++block) {
    const int32_t begin = closure.block_begin(block);
    const int32_t end = closure.block_end(block);
    // Each edge is decided in the block holding its head's position.
    closure.ComputeBlock(block, [&](int32_t u, const BitRow& long_paths) {
      for (int64_t e = dag.first_edge(u); e < dag.first_edge(u + 1); ++e) {
        const int32_t q = dag.topological_position(dag.edge_target(e));
        if (q >= begin && q < end && long_paths.Test(q)) keep[static_cast<size_t>(e)] = 0;
      }
    });
  }
  return dag.KeepEdges(keep);
}

}  // namespace nimble::analysis
