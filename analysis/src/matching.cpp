// Hopcroft-Karp with an explicit stack: DAGs of 100 000 ops make recursive augmenting searches too deep.
#include "nimble/analysis/matching.h"

#include <limits>

namespace nimble::analysis {

Matching BoostEdmondsMatching(const Dag& dag);  // matching_boost.cpp

namespace {

constexpr int32_t kUnreached = std::numeric_limits<int32_t>::max();

class HopcroftKarp {
 public:
  explicit HopcroftKarp(const Dag& dag) : dag_(dag), n_(static_cast<size_t>(dag.num_nodes())) {
    m_.next.assign(n_, -1);
    m_.prev.assign(n_, -1);
    dist_.assign(n_, kUnreached);
    arc_.assign(n_, 0);
  }

  Matching Run() {
    MatchGreedily();
    while (BuildLayers()) {
      for (size_t u = 0; u < n_; ++u) arc_[u] = dag_.first_edge(static_cast<int32_t>(u));
      for (int32_t u = 0; u < static_cast<int32_t>(n_); ++u) {
        if (m_.next[static_cast<size_t>(u)] < 0 && Augment(u)) ++m_.size;
      }
    }
    return std::move(m_);
  }

 private:
  // Topological order makes chains of a layered graph match along the first free successor.
  void MatchGreedily() {
    for (int32_t u : dag_.topological_order()) {
      for (int32_t v : dag_.successors(u)) {
        if (m_.prev[static_cast<size_t>(v)] < 0) {
          Match(u, v);
          ++m_.size;
          break;
        }
      }
    }
  }

  void Match(int32_t u, int32_t v) {
    m_.next[static_cast<size_t>(u)] = v;
    m_.prev[static_cast<size_t>(v)] = u;
  }

  // Breadth-first layers of left nodes from the free ones; true when some free right node is reachable.
  bool BuildLayers() {
    queue_.clear();
    for (size_t u = 0; u < n_; ++u) {
      dist_[u] = m_.next[u] < 0 ? 0 : kUnreached;
      if (dist_[u] == 0) queue_.push_back(static_cast<int32_t>(u));
    }
    bool found = false;
    for (size_t head = 0; head < queue_.size(); ++head) {
      const int32_t u = queue_[head];
      for (int32_t v : dag_.successors(u)) {
        const int32_t w = m_.prev[static_cast<size_t>(v)];
        if (w < 0) {
          found = true;
        } else if (dist_[static_cast<size_t>(w)] == kUnreached) {
          dist_[static_cast<size_t>(w)] = dist_[static_cast<size_t>(u)] + 1;
          queue_.push_back(w);
        }
      }
    }
    return found;
  }

  // Depth-first search along the layers from free left node `root`; flips the path when it finds one.
  bool Augment(int32_t root) {
    stack_.assign(1, root);
    while (!stack_.empty()) {
      const int32_t x = stack_.back();
      int64_t& arc = arc_[static_cast<size_t>(x)];
      if (arc == dag_.first_edge(x + 1)) {
        dist_[static_cast<size_t>(x)] = kUnreached;  // dead end for the rest of this phase
        stack_.pop_back();
        if (!stack_.empty()) ++arc_[static_cast<size_t>(stack_.back())];
        continue;
      }
      const int32_t v = dag_.edge_target(arc);
      const int32_t w = m_.prev[static_cast<size_t>(v)];
      if (w < 0) {
        // Each stack entry's current arc is the edge it takes: rematch along the whole path.
        for (int32_t y : stack_) Match(y, dag_.edge_target(arc_[static_cast<size_t>(y)]));
        return true;
      }
      if (dist_[static_cast<size_t>(w)] == dist_[static_cast<size_t>(x)] + 1) {
        stack_.push_back(w);
      } else {
        ++arc;
      }
    }
    return false;
  }

  const Dag& dag_;
  size_t n_;
  Matching m_;
  std::vector<int32_t> dist_;
  std::vector<int64_t> arc_;  // current edge id of each left node within this phase
  std::vector<int32_t> queue_;
  std::vector<int32_t> stack_;
};

}  // namespace

Matching MaximumMatching(const Dag& dag, MatchingAlgorithm algorithm) {
  if (algorithm == MatchingAlgorithm::kBoostEdmonds) return BoostEdmondsMatching(dag);
  return HopcroftKarp(dag).Run();
}

}  // namespace nimble::analysis
