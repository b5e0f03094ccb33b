// Minimum flow with lower bounds. Network: source s, sink t, and per op v a split arc in(v) -> out(v)
// with lower bound 1; arcs s -> in(v), out(v) -> t, and out(u) -> in(w) per DAG edge, all unbounded.
// A flow of value k is k paths covering every op (paths may share ops), and the least k is the width.
// Pushing flow from t back to s in the residual network lowers the value; when no more can be pushed,
// the split arcs crossing the residual cut from t form a maximum antichain.
#include "nimble/analysis/concurrency.h"

#include <algorithm>

#include "nimble/analysis/transitive_reduction.h"

namespace nimble::analysis {
namespace {

class FlowNetwork {
 public:
  FlowNetwork(const Dag& dag, const Matching& chains);
  // Max flow from t to s (Dinic); returns its value.
  int64_t ReduceFlow();
  // Ops whose split arc goes from the s side to the t side of the final residual cut.
  std::vector<OpId> Antichain() const;

 private:
  struct Edge {
    int32_t from;
    int32_t to;
    int32_t flow;
    int32_t lower;
  };
  static int32_t In(int32_t v) { return 2 + 2 * v; }
  static int32_t Out(int32_t v) { return 3 + 2 * v; }
  // Arcs sorted by tail, so that a node's arcs are contiguous; each knows its reverse.
  void BuildArcs(const std::vector<Edge>& edges);
  bool BuildLevels();  // BFS from t over arcs with residual capacity; true when s is reached
  int64_t BlockingFlow();
  int32_t Tail(int64_t arc) const { return to_[static_cast<size_t>(reverse_[static_cast<size_t>(arc)])]; }

  static constexpr int32_t kSource = 0;
  static constexpr int32_t kSink = 1;
  int32_t num_ops_;
  int32_t infinite_;                 // above any possible flow: at most num_ops paths
  std::vector<int64_t> first_arc_;   // per node; its arcs are [first_arc_[x], first_arc_[x + 1])
  std::vector<int32_t> to_;
  std::vector<int32_t> residual_;
  std::vector<int64_t> reverse_;
  std::vector<int32_t> level_;
  std::vector<int64_t> current_;     // next arc to try, per node, within a phase
  std::vector<int32_t> queue_;
};

FlowNetwork::FlowNetwork(const Dag& dag, const Matching& chains)
    : num_ops_(dag.num_nodes()), infinite_(dag.num_nodes() + 1) {
  std::vector<Edge> edges;
  edges.reserve(static_cast<size_t>(3 * num_ops_ + dag.num_edges()));
  for (int32_t v = 0; v < num_ops_; ++v) {
    const auto sv = static_cast<size_t>(v);
    edges.push_back({In(v), Out(v), 1, 1});                           // every op on exactly one starting chain
    edges.push_back({kSource, In(v), chains.prev[sv] < 0 ? 1 : 0, 0});  // chain heads
    edges.push_back({Out(v), kSink, chains.next[sv] < 0 ? 1 : 0, 0});   // chain tails
    for (int32_t w : dag.successors(v)) edges.push_back({Out(v), In(w), chains.next[sv] == w ? 1 : 0, 0});
  }
  BuildArcs(edges);
}

void FlowNetwork::BuildArcs(const std::vector<Edge>& edges) {
  const auto nodes = static_cast<size_t>(2 + 2 * num_ops_);
  first_arc_.assign(nodes + 1, 0);
  for (const Edge& e : edges) {
    ++first_arc_[static_cast<size_t>(e.from) + 1];
    ++first_arc_[static_cast<size_t>(e.to) + 1];
  }
  for (size_t x = 0; x < nodes; ++x) first_arc_[x + 1] += first_arc_[x];
  to_.assign(2 * edges.size(), 0);
  residual_.assign(2 * edges.size(), 0);
  reverse_.assign(2 * edges.size(), 0);
  std::vector<int64_t> fill(first_arc_.begin(), first_arc_.end() - 1);
  for (const Edge& e : edges) {
    const int64_t a = fill[static_cast<size_t>(e.from)]++;
    const int64_t b = fill[static_cast<size_t>(e.to)]++;
    to_[static_cast<size_t>(a)] = e.to;
    residual_[static_cast<size_t>(a)] = infinite_ - e.flow;
    reverse_[static_cast<size_t>(a)] = b;
    to_[static_cast<size_t>(b)] = e.from;
    residual_[static_cast<size_t>(b)] = e.flow - e.lower;
    reverse_[static_cast<size_t>(b)] = a;
  }
  level_.assign(nodes, -1);
  current_.assign(nodes, 0);
}

bool FlowNetwork::BuildLevels() {
  std::fill(level_.begin(), level_.end(), -1);
  queue_.assign(1, kSink);
  level_[kSink] = 0;
  for (size_t head = 0; head < queue_.size(); ++head) {
    const int32_t x = queue_[head];
    const auto sx = static_cast<size_t>(x);
    // Arcs out of s's level lead nowhere useful in this phase (but a complete cut needs a full search).
    if (level_[kSource] >= 0 && level_[sx] >= level_[kSource]) break;
    for (int64_t a = first_arc_[sx]; a < first_arc_[sx + 1]; ++a) {
      const auto y = static_cast<size_t>(to_[static_cast<size_t>(a)]);
      if (residual_[static_cast<size_t>(a)] > 0 && level_[y] < 0) {
        level_[y] = level_[sx] + 1;
        queue_.push_back(static_cast<int32_t>(y));
      }
    }
  }
  return level_[kSource] >= 0;
}

int64_t FlowNetwork::BlockingFlow() {
  std::copy(first_arc_.begin(), first_arc_.end() - 1, current_.begin());
  int64_t total = 0;
  std::vector<int64_t> path;  // arcs from t to the node being extended
  int32_t x = kSink;
  while (true) {
    if (x == kSource) {
      int32_t push = infinite_;
      for (int64_t a : path) push = std::min(push, residual_[static_cast<size_t>(a)]);
      for (int64_t a : path) {
        residual_[static_cast<size_t>(a)] -= push;
        residual_[static_cast<size_t>(reverse_[static_cast<size_t>(a)])] += push;
      }
      total += push;
      size_t keep = 0;  // retreat to the tail of the first saturated arc
      while (residual_[static_cast<size_t>(path[keep])] > 0) ++keep;
      x = Tail(path[keep]);
      path.resize(keep);
      continue;
    }
    const auto sx = static_cast<size_t>(x);
    int64_t& a = current_[sx];
    while (a < first_arc_[sx + 1] && (residual_[static_cast<size_t>(a)] <= 0 ||
                                      level_[static_cast<size_t>(to_[static_cast<size_t>(a)])] != level_[sx] + 1)) {
      ++a;
    }
    if (a < first_arc_[sx + 1]) {
      path.push_back(a);
      x = to_[static_cast<size_t>(a)];
      continue;
    }
    level_[sx] = -1;  // nothing more passes through x in this phase
    if (path.empty()) return total;
    x = Tail(path.back());
    path.pop_back();
    ++current_[static_cast<size_t>(x)];
  }
}

int64_t FlowNetwork::ReduceFlow() {
  int64_t total = 0;
  while (BuildLevels()) total += BlockingFlow();
  return total;  // the last BuildLevels did not reach s, so it searched everything: level_ marks the t side
}

std::vector<OpId> FlowNetwork::Antichain() const {
  std::vector<OpId> out;
  for (int32_t v = 0; v < num_ops_; ++v) {
    if (level_[static_cast<size_t>(In(v))] < 0 && level_[static_cast<size_t>(Out(v))] >= 0) out.push_back(OpId(v));
  }
  return out;
}

}  // namespace

Concurrency ComputeConcurrency(const Dag& dag, const Matching& chains) {
  FlowNetwork network(dag, chains);
  const int64_t reduced = network.ReduceFlow();
  Concurrency out;
  out.width = static_cast<int32_t>(dag.num_nodes() - chains.size - reduced);
  out.antichain = network.Antichain();
  return out;
}

Concurrency ComputeConcurrency(const Dag& dag) {
  const Dag reduced = TransitiveReduction(dag);
  return ComputeConcurrency(reduced, MaximumMatching(reduced));
}

}  // namespace nimble::analysis
