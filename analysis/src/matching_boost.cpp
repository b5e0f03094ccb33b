// Boost's Edmonds matching, kept behind MaximumMatching: the bipartite graph becomes an undirected
// graph of 2n vertices (x_u = u, y_v = n + v).
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/max_cardinality_matching.hpp>

#include "nimble/analysis/matching.h"

namespace nimble::analysis {

Matching BoostEdmondsMatching(const Dag& dag) {
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
  using Vertex = boost::graph_traits<Graph>::vertex_descriptor;
  const auto n = static_cast<size_t>(dag.num_nodes());
  Matching m;
  m.next.assign(n, -1);
  m.prev.assign(n, -1);
  if (n == 0) return m;
  Graph graph(2 * n);
  for (int32_t u = 0; u < dag.num_nodes(); ++u) {
    for (int32_t v : dag.successors(u)) boost::add_edge(static_cast<Vertex>(u), n + static_cast<Vertex>(v), graph);
  }
  std::vector<Vertex> mate(2 * n);
  boost::edmonds_maximum_cardinality_matching(graph, &mate[0]);
  const Vertex none = boost::graph_traits<Graph>::null_vertex();
  for (size_t u = 0; u < n; ++u) {
    if (mate[u] == none) continue;
    const auto v = static_cast<int32_t>(mate[u] - n);
    m.next[u] = v;
    m.prev[static_cast<size_t>(v)] = static_cast<int32_t>(u);
    ++m.size;
  }
  return m;
}

}  // namespace nimble::analysis
