// A validated directed acyclic graph over ops in compressed sparse row form, with a topological order.
// Node v is the op OpId(v). Edges are deduplicated (a data edge wins over an order edge between the same
// two ops) and each node's successors are sorted by node index; an edge's id is its position in that
// successor array. Immutable once built; safe to share read-only between threads.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "nimble/core/op_graph.h"
#include "nimble/core/status.h"

namespace nimble::analysis {

// Names node v in error messages.
using NodeNamer = std::function<std::string(int32_t v)>;

class Dag {
 public:
  Dag() = default;

  // The ops and edges of `graph`. Fails, naming the ops, on a dangling edge or a cycle (listed in order).
  static StatusOr<Dag> FromOpGraph(const OpGraph& graph);
  // Nodes 0..num_nodes-1 and `edges`; `name` names nodes in messages (default: "op <v>").
  static StatusOr<Dag> FromEdges(int32_t num_nodes, std::span<const OpEdge> edges, const NodeNamer& name = {});

  int32_t num_nodes() const { return static_cast<int32_t>(topo_order_.size()); }
  int64_t num_edges() const { return static_cast<int64_t>(succ_.size()); }

  std::span<const int32_t> successors(int32_t v) const { return Slice(succ_, succ_offsets_, v); }
  std::span<const EdgeKind> successor_kinds(int32_t v) const { return Slice(succ_kind_, succ_offsets_, v); }
  std::span<const int32_t> predecessors(int32_t v) const { return Slice(pred_, pred_offsets_, v); }
  // Id of the first edge leaving v; v's edges are [first_edge(v), first_edge(v + 1)).
  int64_t first_edge(int32_t v) const { return succ_offsets_[static_cast<size_t>(v)]; }
  // Head of edge `edge_id`.
  int32_t edge_target(int64_t edge_id) const { return succ_[static_cast<size_t>(edge_id)]; }

  // Every node appears once, after all of its predecessors.
  std::span<const int32_t> topological_order() const { return topo_order_; }
  int32_t topological_position(int32_t v) const { return topo_pos_[static_cast<size_t>(v)]; }

  // Same nodes and topological order, only the edges whose flag (indexed by edge id) is non-zero.
  Dag KeepEdges(std::span<const uint8_t> keep) const;
  // All edges, by source then target.
  std::vector<OpEdge> Edges() const;

 private:
  template <typename T>
  static std::span<const T> Slice(const std::vector<T>& data, const std::vector<int64_t>& offsets, int32_t v) {
    const auto begin = offsets[static_cast<size_t>(v)];
    const auto end = offsets[static_cast<size_t>(v) + 1];
    return {data.data() + begin, static_cast<size_t>(end - begin)};
  }
  void BuildPredecessors();
  // Kahn's algorithm; on a cycle returns an error listing one cycle's ops in order.
  Status BuildTopologicalOrder(const NodeNamer& name);

  std::vector<int64_t> succ_offsets_{0};
  std::vector<int32_t> succ_;
  std::vector<EdgeKind> succ_kind_;
  std::vector<int64_t> pred_offsets_{0};
  std::vector<int32_t> pred_;
  std::vector<int32_t> topo_order_;
  std::vector<int32_t> topo_pos_;
};

}  // namespace nimble::analysis
