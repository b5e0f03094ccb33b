// What a LoadedModel holds: the frozen module, its forward graph, and the node each op came from.
// Private to accelerate/src: the one header that ties the opaque handle to libtorch types.
// Invariant: op_nodes[i] is a node of graph's top block, for OpId(i) of the extracted OpGraph.
#pragma once

#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/ir/ir.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "nimble/accelerate/loaded_model.h"
#include "nimble/core/tensor_spec.h"

namespace nimble::accelerate {

struct LoadedModel::Impl {
  std::string path;
  std::string device;
  torch::jit::Module module;                    // frozen (and, by option, optimized)
  std::shared_ptr<torch::jit::Graph> graph;     // module's forward graph; the same object, not a copy
  std::vector<TensorSpec> inputs;             // one per forward argument
  bool channels_last = false;                   // convolution weights and 4-D inputs made channels_last
  bool layout_open = false;                     // kAuto could not settle the layout (LayoutUndecided, conv_layout.h)
  int64_t float32_weights = 0;                  // elements of float32 tensor constants, before any widening
  int64_t half_weights = 0;                     // of float16 and bfloat16 ones
  std::vector<torch::jit::Node*> op_nodes;      // filled by the graph extractor
  // Per op node: whether an output shared storage with an input when the shapes were run (a view the
  // schema may not declare); 1 where not known. The stream rewrite never releases such memory.
  std::vector<uint8_t> op_shares_input;
  // The graph's inputs are distinct tensors that share no memory (a training forward's lifted parameters
  // and buffers, training_schedule.h): the op graph orders a write to inputs only with the ops touching
  // them, where alias analysis would order it with every op that reads any input.
  bool distinct_inputs = false;
};

}  // namespace nimble::accelerate
