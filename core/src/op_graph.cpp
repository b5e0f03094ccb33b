#include "nimble/core/op_graph.h"

namespace nimble {

Status OpGraph::Validate() const {
  const auto n = static_cast<int64_t>(ops.size());
  for (int64_t i = 0; i < n; ++i) {
    if (ops[static_cast<size_t>(i)].id.value() != i) {
      return InvalidArgument("op '" + ops[static_cast<size_t>(i)].name + "' at position " + std::to_string(i) +
                             " has id " + std::to_string(ops[static_cast<size_t>(i)].id.value()) +
                             "; ids must be dense and in order");
    }
  }
  for (const OpEdge& e : edges) {
    if (e.src.value() < 0 || e.src.value() >= n || e.dst.value() < 0 || e.dst.value() >= n) {
      return InvalidArgument("dangling edge " + std::to_string(e.src.value()) + " -> " +
                             std::to_string(e.dst.value()) + ": the graph has " + std::to_string(n) + " ops");
    }
    if (e.src == e.dst) {
      return InvalidArgument("self loop on op '" + ops[static_cast<size_t>(e.src.value())].name + "'");
    }
  }
  return OkStatus();
}

}  // namespace nimble
