#include "nimble/analysis/dag.h"

#include <algorithm>
#include <deque>

namespace nimble::analysis {
namespace {

std::string DefaultName(int32_t v) { return "op " + std::to_string(v); }

std::string Quote(const NodeNamer& name, int32_t v) {
  std::string out(1, '\'');
  out += name(v);
  out += '\'';
  return out;
}

Status CheckEndpoints(int32_t num_nodes, std::span<const OpEdge> edges, const NodeNamer& name) {
  auto in_range = [&](OpId id) { return id.value() >= 0 && id.value() < num_nodes; };
  for (const OpEdge& e : edges) {
    if (in_range(e.src) && in_range(e.dst)) continue;
    const std::string src = in_range(e.src) ? Quote(name, e.src.value()) : std::to_string(e.src.value());
    const std::string dst = in_range(e.dst) ? Quote(name, e.dst.value()) : std::to_string(e.dst.value());
    return InvalidArgument("dangling edge from " + src + " to " + dst + ": the graph has " +
                           std::to_string(num_nodes) + " ops");
  }
  return OkStatus();
}

std::string DescribeCycle(const std::vector<int32_t>& cycle, const NodeNamer& name) {
  std::string out = "cycle: ";
  for (int32_t v : cycle) out += Quote(name, v) + " -> ";
  return out + Quote(name, cycle.front());
}

}  // namespace

StatusOr<Dag> Dag::FromOpGraph(const OpGraph& graph) {
  NIMBLE_RETURN_IF_ERROR(graph.Validate());
  const NodeNamer name = [&graph](int32_t v) { return graph.ops[static_cast<size_t>(v)].name; };
  return FromEdges(static_cast<int32_t>(graph.ops.size()), graph.edges, name);
}

StatusOr<Dag> Dag::FromEdges(int32_t num_nodes, std::span<const OpEdge> edges, const NodeNamer& name_in) {
  const NodeNamer name = name_in ? name_in : NodeNamer(DefaultName);
  if (num_nodes < 0) return InvalidArgument("negative number of ops: " + std::to_string(num_nodes));
  NIMBLE_RETURN_IF_ERROR(CheckEndpoints(num_nodes, edges, name));
  for (const OpEdge& e : edges) {
    if (e.src == e.dst) return InvalidArgument(DescribeCycle({e.src.value()}, name));
  }
  // Sort by (src, dst, kind) so that duplicates are adjacent and kData (0) comes first and is kept.
  std::vector<OpEdge> sorted(edges.begin(), edges.end());
  std::sort(sorted.begin(), sorted.end(), [](const OpEdge& a, const OpEdge& b) {
    if (a.src != b.src) return a.src < b.src;
    if (a.dst != b.dst) return a.dst < b.dst;
    return a.kind < b.kind;
  });
  Dag dag;
  dag.succ_offsets_.assign(static_cast<size_t>(num_nodes) + 1, 0);
  for (size_t i = 0; i < sorted.size(); ++i) {
    const OpEdge& e = sorted[i];
    if (i > 0 && sorted[i - 1].src == e.src && sorted[i - 1].dst == e.dst) continue;
    dag.succ_.push_back(e.dst.value());
    dag.succ_kind_.push_back(e.kind);
    ++dag.succ_offsets_[static_cast<size_t>(e.src.value()) + 1];
  }
  for (size_t v = 0; v < static_cast<size_t>(num_nodes); ++v) dag.succ_offsets_[v + 1] += dag.succ_offsets_[v];
  dag.BuildPredecessors();
  NIMBLE_RETURN_IF_ERROR(dag.BuildTopologicalOrder(name));
  return dag;
}

void Dag::BuildPredecessors() {
  const auto n = static_cast<size_t>(succ_offsets_.size() - 1);
  pred_offsets_.assign(n + 1, 0);
  for (int32_t w : succ_) ++pred_offsets_[static_cast<size_t>(w) + 1];
  for (size_t v = 0; v < n; ++v) pred_offsets_[v + 1] += pred_offsets_[v];
  pred_.assign(succ_.size(), 0);
  std::vector<int64_t> fill(pred_offsets_.begin(), pred_offsets_.end() - 1);
  // Sources ascend, so every predecessor list comes out sorted.
  for (size_t v = 0; v < n; ++v) {
    for (int32_t w : successors(static_cast<int32_t>(v))) {
      pred_[static_cast<size_t>(fill[static_cast<size_t>(w)]++)] = static_cast<int32_t>(v);
    }
  }
}

Status Dag::BuildTopologicalOrder(const NodeNamer& name) {
  const auto n = static_cast<int32_t>(succ_offsets_.size() - 1);
  std::vector<int32_t> indegree(static_cast<size_t>(n));
  for (int32_t v = 0; v < n; ++v) indegree[static_cast<size_t>(v)] = static_cast<int32_t>(predecessors(v).size());
  std::deque<int32_t> ready;
  for (int32_t v = 0; v < n; ++v) {
    if (indegree[static_cast<size_t>(v)] == 0) ready.push_back(v);
  }
  topo_order_.clear();
  topo_order_.reserve(static_cast<size_t>(n));
  while (!ready.empty()) {
    const int32_t v = ready.front();
    ready.pop_front();
    topo_order_.push_back(v);
    for (int32_t w : successors(v)) {
      if (--indegree[static_cast<size_t>(w)] == 0) ready.push_back(w);
    }
  }
  if (static_cast<int32_t>(topo_order_.size()) < n) {
    // Every node left has a predecessor that is also left: walking predecessors must revisit a node.
    int32_t v = 0;
    while (indegree[static_cast<size_t>(v)] == 0) ++v;
    std::vector<int32_t> step_of(static_cast<size_t>(n), -1);
    std::vector<int32_t> walk;
    while (step_of[static_cast<size_t>(v)] < 0) {
      step_of[static_cast<size_t>(v)] = static_cast<int32_t>(walk.size());
      walk.push_back(v);
      for (int32_t p : predecessors(v)) {
        if (indegree[static_cast<size_t>(p)] > 0) { v = p; break; }
      }
    }
    std::vector<int32_t> cycle(walk.begin() + step_of[static_cast<size_t>(v)], walk.end());
    std::reverse(cycle.begin(), cycle.end());  // predecessors were walked: reverse to follow the edges
    return InvalidArgument(DescribeCycle(cycle, name));
  }
  topo_pos_.assign(static_cast<size_t>(n), 0);
  for (int32_t i = 0; i < n; ++i) topo_pos_[static_cast<size_t>(topo_order_[static_cast<size_t>(i)])] = i;
  return OkStatus();
}

Dag Dag::KeepEdges(std::span<const uint8_t> keep) const {
  Dag out;
  const int32_t n = num_nodes();
  out.succ_offsets_.assign(static_cast<size_t>(n) + 1, 0);
  for (int32_t v = 0; v < n; ++v) {
    for (int64_t e = first_edge(v); e < first_edge(v + 1); ++e) {
      if (keep[static_cast<size_t>(e)] == 0) continue;
      out.succ_.push_back(succ_[static_cast<size_t>(e)]);
      out.succ_kind_.push_back(succ_kind_[static_cast<size_t>(e)]);
    }
    out.succ_offsets_[static_cast<size_t>(v) + 1] = static_cast<int64_t>(out.succ_.size());
  }
  out.BuildPredecessors();
  out.topo_order_ = topo_order_;  // a subgraph keeps every order of the whole graph
  out.topo_pos_ = topo_pos_;
  return out;
}

std::vector<OpEdge> Dag::Edges() const {
  std::vector<OpEdge> out;
  out.reserve(succ_.size());
  for (int32_t v = 0; v < num_nodes(); ++v) {
    const auto targets = successors(v);
    const auto kinds = successor_kinds(v);
    for (size_t i = 0; i < targets.size(); ++i) out.push_back({OpId(v), OpId(targets[i]), kinds[i]});
  }
  return out;
}

}  // namespace nimble::analysis
