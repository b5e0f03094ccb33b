#include "nimble/analysis/critical_path.h"

#include <algorithm>
#include <string>

namespace nimble::analysis {

StatusOr<CriticalPath> ComputeCriticalPath(const Dag& dag, std::span<const int64_t> weight_ns) {
  const auto n = static_cast<size_t>(dag.num_nodes());
  if (weight_ns.size() != n) {
    return InvalidArgument("critical path needs one weight per op: got " + std::to_string(weight_ns.size()) +
                           " weights for " + std::to_string(n) + " ops");
  }
  for (size_t v = 0; v < n; ++v) {
    if (weight_ns[v] < 0) return InvalidArgument("op " + std::to_string(v) + " has a negative GPU time");
  }
  // finish[v]: heaviest path ending at v, v included; via[v]: its previous op.
  std::vector<int64_t> finish(n, 0);
  std::vector<int32_t> via(n, -1);
  for (int32_t v : dag.topological_order()) {
    int64_t best = 0;
    for (int32_t p : dag.predecessors(v)) {
      if (via[static_cast<size_t>(v)] < 0 || finish[static_cast<size_t>(p)] > best) {
        best = finish[static_cast<size_t>(p)];
        via[static_cast<size_t>(v)] = p;
      }
    }
    finish[static_cast<size_t>(v)] = best + weight_ns[static_cast<size_t>(v)];
  }
  CriticalPath out;
  if (n == 0) return out;
  const auto last = static_cast<int32_t>(std::max_element(finish.begin(), finish.end()) - finish.begin());
  out.length_ns = finish[static_cast<size_t>(last)];
  for (int32_t v = last; v >= 0; v = via[static_cast<size_t>(v)]) out.ops.push_back(OpId(v));
  std::reverse(out.ops.begin(), out.ops.end());
  return out;
}

std::vector<int64_t> OpWeights(const OpGraph& graph) {
  std::vector<int64_t> out;
  out.reserve(graph.ops.size());
  for (const Op& op : graph.ops) out.push_back(op.gpu_time_ns);
  return out;
}

}  // namespace nimble::analysis
