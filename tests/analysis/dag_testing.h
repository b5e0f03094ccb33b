// Helpers for the analysis tests: seeded random DAGs and brute-force reachability to check algorithms
// against. Deterministic for a given seed; single-threaded.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "nimble/analysis/dag.h"

namespace nimble::analysis::testing {

// A random DAG on n nodes: a hidden random order, each forward pair an edge with probability p.
// Node ids are shuffled so that id order is not a topological order; a few edges are repeated.
inline std::vector<OpEdge> RandomDagEdges(std::mt19937_64& rng, int32_t n, double p) {
  std::vector<int32_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  std::bernoulli_distribution edge(p);
  std::bernoulli_distribution repeat(0.05);
  std::vector<OpEdge> edges;
  for (int32_t i = 0; i < n; ++i) {
    for (int32_t j = i + 1; j < n; ++j) {
      if (!edge(rng)) continue;
      const OpEdge e{OpId(order[static_cast<size_t>(i)]), OpId(order[static_cast<size_t>(j)]), EdgeKind::kData};
      edges.push_back(e);
      if (repeat(rng)) edges.push_back({e.src, e.dst, EdgeKind::kOrder});
    }
  }
  std::shuffle(edges.begin(), edges.end(), rng);
  return edges;
}

inline Dag MustBuild(int32_t n, const std::vector<OpEdge>& edges) {
  auto dag = Dag::FromEdges(n, edges);
  EXPECT_TRUE(dag.ok()) << dag.status().ToString();
  return std::move(dag).value();
}

// reach[u][v]: a path of one or more edges leads from u to v (Floyd-Warshall).
using ReachMatrix = std::vector<std::vector<bool>>;
inline ReachMatrix BruteReach(int32_t n, const std::vector<OpEdge>& edges) {
  ReachMatrix reach(static_cast<size_t>(n), std::vector<bool>(static_cast<size_t>(n), false));
  for (const OpEdge& e : edges) reach[static_cast<size_t>(e.src.value())][static_cast<size_t>(e.dst.value())] = true;
  for (size_t k = 0; k < reach.size(); ++k) {
    for (size_t i = 0; i < reach.size(); ++i) {
      if (!reach[i][k]) continue;
      for (size_t j = 0; j < reach.size(); ++j) {
        if (reach[k][j]) reach[i][j] = true;
      }
    }
  }
  return reach;
}

inline bool Comparable(const ReachMatrix& reach, int32_t u, int32_t v) {
  return reach[static_cast<size_t>(u)][static_cast<size_t>(v)] || reach[static_cast<size_t>(v)][static_cast<size_t>(u)];
}

}  // namespace nimble::analysis::testing
