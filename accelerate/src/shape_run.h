// The shape run: the frozen graph executed once, node by node, on random float inputs of the given
// shapes, recording what each node produced. It gives exact output shapes for every op (data-dependent
// ones included, for these inputs) and tells views from copies for ops that may be either.
// Values are freed after their last use, so peak memory is that of a normal forward pass. One thread.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <ATen/core/ivalue.h>

#include "nimble/accelerate/loaded_model.h"
#include "nimble/core/status.h"

namespace torch::jit {
struct Graph;
struct Node;
struct Value;
}

namespace nimble::accelerate {

struct NodeObservation {
  std::string output_shapes;          // "[1,64,56,56]"; several outputs joined by ", "; lists in ( )
  bool outputs_alias_inputs = false;  // every tensor output shares storage with a tensor input
  bool some_output_aliases_input = false;  // a tensor output shares storage with a tensor input
  bool outputs_are_scalars = false;   // every tensor output has no dimensions (true with none at all)
  std::optional<c10::IValue> shape_query;  // a metadata read (op_kinds.h) returning numbers: its value
  std::optional<c10::ScalarType> output_dtype;  // the dtype of a node's one output, when a tensor
};

using ShapeRun = std::unordered_map<const torch::jit::Node*, NodeObservation>;

// Checks the input count and shapes against the forward signature, then runs the graph. A node that
// rejects the inputs (wrong rank or size) gives InvalidArgument naming the file, the given shapes,
// the node and its reason (which states what it expected).
StatusOr<ShapeRun> RunForShapes(const LoadedModel::Impl& model);

// The pieces of the shape run that the eager runner (eager_runner.cpp) executes too, so that both run
// a node the same way.
using ValueEnv = std::unordered_map<const torch::jit::Value*, c10::IValue>;

// "[1,64,56,56]", as NodeObservation::output_shapes writes a tensor's shape.
std::string ShapeText(c10::IntArrayRef shape);
// The input count and shapes against the forward signature (InvalidArgument naming the file).
Status CheckInputShapes(const torch::jit::Graph& graph, const LoadedModel::Impl& model);
// The module and random inputs of model.inputs on model.device, keyed by graph input.
ValueEnv MakeRandomInputs(const torch::jit::Graph& graph, const LoadedModel::Impl& model);
// Runs one node of the frozen graph on its input values; libtorch exceptions propagate.
std::vector<c10::IValue> RunFrozenNode(const torch::jit::Node& node, std::vector<c10::IValue> inputs);
// Position (in graph.nodes() order) of the last node that reads each value.
std::unordered_map<const torch::jit::Value*, size_t> LastUseIndex(const torch::jit::Graph& graph);

}  // namespace nimble::accelerate
