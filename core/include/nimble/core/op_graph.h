// The op graph of a model: one Op per node that launches GPU work, edges for data dependencies
// and for the ordering of side effects. Ops are dense: ops[i].id == OpId(i).
// Plain data; Validate() is the only logic. No threading concerns.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nimble/core/ids.h"
#include "nimble/core/status.h"

namespace nimble {

struct Op {
  OpId id;
  std::string name;           // unique within the graph, e.g. "conv2d_17"
  std::string kind;           // e.g. "aten::conv2d"
  std::string output_shapes;  // e.g. "[1,64,112,112]"; free text, for display
  int64_t gpu_time_ns = 0;    // sum of its kernels' durations (0 until measured)
  friend bool operator==(const Op&, const Op&) = default;
};

enum class EdgeKind : int32_t { kData = 0, kOrder = 1 };

struct OpEdge {
  OpId src;
  OpId dst;
  EdgeKind kind = EdgeKind::kData;
  friend bool operator==(const OpEdge&, const OpEdge&) = default;
};

struct OpGraph {
  std::vector<Op> ops;
  std::vector<OpEdge> edges;

  // Dense ids, edges between existing ops, no self loops. (Acyclicity is checked by analysis.)
  Status Validate() const;
};

// Which op launched a kernel (by its position in Trace::kernels).
struct KernelAttribution {
  OpId op;
  KernelIndex kernel;
  friend bool operator==(const KernelAttribution&, const KernelAttribution&) = default;
};

}  // namespace nimble
