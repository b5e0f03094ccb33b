#include "dag_brute_force.h"

#include <algorithm>
#include <cassert>
#include <vector>

namespace nimble::testing {
namespace {

std::vector<std::vector<int32_t>> Successors(const OpGraph& graph) {
  std::vector<std::vector<int32_t>> succ(graph.ops.size());
  for (const OpEdge& e : graph.edges) succ[static_cast<size_t>(e.src.value())].push_back(e.dst.value());
  return succ;
}

// reach[a][b]: a path of one or more edges leads from a to b.
std::vector<std::vector<bool>> Reachability(const OpGraph& graph) {
  const size_t n = graph.ops.size();
  const auto succ = Successors(graph);
  std::vector<std::vector<bool>> reach(n, std::vector<bool>(n, false));
  for (size_t start = 0; start < n; ++start) {
    std::vector<int32_t> pending(succ[start].begin(), succ[start].end());
    while (!pending.empty()) {
      const auto v = static_cast<size_t>(pending.back());
      pending.pop_back();
      if (reach[start][v]) continue;
      reach[start][v] = true;
      pending.insert(pending.end(), succ[v].begin(), succ[v].end());
    }
  }
  return reach;
}

int32_t LongestFrom(size_t op, const std::vector<std::vector<int32_t>>& succ) {
  int32_t best = 0;
  for (const int32_t next : succ[op]) best = std::max(best, LongestFrom(static_cast<size_t>(next), succ));
  return best + 1;
}

}  // namespace

int32_t BruteForceWidth(const OpGraph& graph) {
  const size_t n = graph.ops.size();
  assert(n <= 20 && "brute force is for small graphs");
  const auto reach = Reachability(graph);
  int32_t best = 0;
  for (uint32_t subset = 1; subset < (1u << n); ++subset) {
    bool antichain = true;
    for (size_t a = 0; a < n && antichain; ++a) {
      for (size_t b = 0; b < n && antichain; ++b) {
        if ((subset >> a & 1u) && (subset >> b & 1u) && reach[a][b]) antichain = false;
      }
    }
    if (antichain) best = std::max(best, static_cast<int32_t>(__builtin_popcount(subset)));
  }
  return best;
}

int32_t BruteForceCriticalPathOps(const OpGraph& graph) {
  const auto succ = Successors(graph);
  int32_t best = 0;
  for (size_t op = 0; op < graph.ops.size(); ++op) best = std::max(best, LongestFrom(op, succ));
  return best;
}

EdgeSet Edges(const OpGraph& graph) {
  EdgeSet edges;
  for (const OpEdge& e : graph.edges) edges.insert({e.src.value(), e.dst.value(), e.kind});
  return edges;
}

}  // namespace nimble::testing
