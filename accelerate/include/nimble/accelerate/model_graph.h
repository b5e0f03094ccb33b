// The TorchScript front end: a model file and its input shapes in, the op graph out (one op per node
// that launches GPU work, data edges through folded plumbing, order edges between side effects).
// Invariants: ops in topological order (edges go from lower to higher ids), no duplicate edges,
// OpGraph::Validate() holds. Calls share no state; a result belongs to one thread at a time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nimble/accelerate/loaded_model.h"
#include "nimble/core/op_graph.h"
#include "nimble/core/status.h"

namespace nimble {

struct FrontEndOptions {
  // Run the frozen-graph optimizations the ahead-of-time stage wants: conv-batchnorm and conv-add/mul
  // folding and, on CUDA, conv-(add-)relu fusion. Of torch::jit::optimize_for_inference's other passes,
  // the MKLDNN conversion is CPU-only and the linear transpose turns one addmm kernel into two.
  bool optimize = true;
  // Where the model is loaded and its shape run happens: "cpu", "cuda" or "cuda:N".
  std::string device = "cpu";
};

struct ModelGraph {
  OpGraph graph;
  LoadedModel model;            // the frozen module; model.impl() maps ops back to their nodes
  int32_t graph_nodes = 0;      // nodes in the frozen graph, ops and folded ones together
  int64_t load_ns = 0;          // reading, freezing and simplifying the module
  int64_t shape_run_ns = 0;     // running it once for shapes (a forward pass on options.device)
  int64_t extract_ns = 0;       // classifying nodes and building the edges
};

// Loads `path` (torch::jit::load), puts it in eval mode, freezes it (inlining methods and folding
// attributes into constants), runs it once on random float inputs of `input_shapes` (one shape per
// forward argument) to learn output shapes, and extracts the op graph. Errors name the file and, where
// one is at fault, the node: NotFound (no file), DataLoss (not a readable archive), InvalidArgument
// (not TorchScript; wrong input count, rank or size), FailedPrecondition (dynamic control flow, no ops
// that launch GPU work), Unavailable (device).
StatusOr<ModelGraph> LoadModelGraph(const std::string& path,
                                    const std::vector<std::vector<int64_t>>& input_shapes,
                                    const FrontEndOptions& options = {});

}  // namespace nimble
