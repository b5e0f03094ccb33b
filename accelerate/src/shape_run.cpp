#include "shape_run.h"

#include <ATen/ops/randint.h>
#include <ATen/ops/randn.h>
#include <c10/core/InferenceMode.h>
#include <torch/csrc/jit/ir/ir.h>

#include <algorithm>
#include <vector>

#include "loaded_model_impl.h"
#include "node_names.h"
#include "op_kinds.h"
#include "tensor_types.h"
#include "torch_errors.h"

namespace nimble::accelerate {
namespace {

using c10::IValue;
using torch::jit::Node;
using torch::jit::Value;
using Shapes = std::vector<std::vector<int64_t>>;

std::string ShapesText(const Shapes& shapes) {
  std::string text;
  for (size_t i = 0; i < shapes.size(); ++i) text += (i ? ", " : "") + ShapeText(shapes[i]);
  return shapes.empty() ? "none" : text;
}

Status CheckInputs(const torch::jit::Graph& graph, const LoadedModel::Impl& model) {
  // Input 0 of a method's graph is the module itself.
  const auto args = graph.inputs().slice(1);
  const Shapes shapes = SpecShapes(model.inputs);
  if (args.size() != shapes.size()) {
    std::string names;
    for (const Value* arg : args) names += (names.empty() ? "" : ", ") + arg->debugNameBase();
    return InvalidArgument(model.path + ": forward takes " + std::to_string(args.size()) + " input(s) (" + names +
                           ") but " + std::to_string(shapes.size()) + " shape(s) were given: " + ShapesText(shapes));
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i]->type()->cast<c10::TensorType>()) {
      return Unimplemented(model.path + ": input '" + args[i]->debugNameBase() + "' is a " + args[i]->type()->repr_str() +
                           "; the front end feeds tensors only");
    }
    for (const int64_t dim : shapes[i]) {
      if (dim <= 0) {
        return InvalidArgument(model.path + ": shape " + ShapeText(shapes[i]) + " of input '" + args[i]->debugNameBase() +
                               "' has a dimension that is not positive");
      }
    }
  }
  return OkStatus();
}

// "[1,64,56,56]" for a tensor, "([2,3], [2,3])" for lists and tuples, the type name otherwise.
std::string Describe(const IValue& value) {
  if (value.isTensor()) return ShapeText(value.toTensor().sizes());
  if (value.isNone()) return "None";
  std::vector<IValue> elements;
  if (value.isList()) elements = value.toList().vec();
  if (value.isTuple()) elements = value.toTupleRef().elements().vec();
  if (!value.isList() && !value.isTuple()) return value.tagKind();
  std::string text = "(";
  for (size_t i = 0; i < elements.size(); ++i) text += (i ? ", " : "") + Describe(elements[i]);
  return text + ")";
}

void CollectTensors(const IValue& value, std::vector<at::Tensor>& out) {
  if (value.isTensor()) out.push_back(value.toTensor());
  if (value.isList()) for (const IValue& v : value.toList().vec()) CollectTensors(v, out);
  if (value.isTuple()) for (const IValue& v : value.toTupleRef().elements()) CollectTensors(v, out);
}

// True when the node produced tensors and each shares storage with a tensor it was given: it made
// a view or handed its input back, and launched nothing.
bool OutputsAliasInputs(const std::vector<IValue>& inputs, const std::vector<IValue>& outputs) {
  std::vector<at::Tensor> in, out;
  for (const IValue& v : inputs) CollectTensors(v, in);
  for (const IValue& v : outputs) CollectTensors(v, out);
  if (out.empty()) return false;
  for (const at::Tensor& o : out) {
    bool aliased = false;
    for (const at::Tensor& i : in) aliased = aliased || (o.defined() && i.defined() && o.is_alias_of(i));
    if (!aliased) return false;
  }
  return true;
}

// True when any tensor output shares storage with a tensor input: a view, or the input handed back,
// whatever the op's schema says (aten::atleast_1d's returns its input without an alias annotation).
bool SomeOutputAliasesInput(const std::vector<IValue>& inputs, const std::vector<IValue>& outputs) {
  std::vector<at::Tensor> in, out;
  for (const IValue& v : inputs) CollectTensors(v, in);
  for (const IValue& v : outputs) CollectTensors(v, out);
  for (const at::Tensor& o : out) {
    for (const at::Tensor& i : in) {
      if (o.defined() && i.defined() && o.is_alias_of(i)) return true;
    }
  }
  return false;
}

bool AllScalars(const std::vector<IValue>& outputs) {
  std::vector<at::Tensor> tensors;
  for (const IValue& v : outputs) CollectTensors(v, tensors);
  return std::all_of(tensors.begin(), tensors.end(), [](const at::Tensor& t) { return t.defined() && t.dim() == 0; });
}

// Runs one node. Plumbing that the interpreter executes as instructions has no registered operator,
// so it is built here.
std::vector<IValue> RunNode(const Node& node, std::vector<IValue> inputs) {
  switch (node.kind()) {
    case c10::prim::Constant:
      return {torch::jit::toIValue(node.output()).value()};
    case c10::prim::ListConstruct: {
      c10::impl::GenericList list(node.output()->type()->expectRef<c10::ListType>().getElementType());
      for (IValue& v : inputs) list.push_back(std::move(v));
      return {IValue(std::move(list))};
    }
    case c10::prim::TupleConstruct: {
      auto tuple_type = node.output()->type()->cast<c10::TupleType>();
      if (tuple_type && tuple_type->schema()) return {c10::ivalue::Tuple::createNamed(std::move(inputs), tuple_type)};
      return {c10::ivalue::Tuple::create(std::move(inputs))};
    }
    case c10::prim::ListUnpack:
      return inputs.at(0).toList().vec();
    case c10::prim::TupleUnpack:
      return inputs.at(0).toTupleRef().elements().vec();
    default: {
      torch::jit::Stack stack(std::make_move_iterator(inputs.begin()), std::make_move_iterator(inputs.end()));
      node.getOperation()(stack);
      return stack;
    }
  }
}

// Index of the last node that reads each value, so the run can free it right after.
std::unordered_map<const Value*, size_t> LastUses(const torch::jit::Graph& graph) {
  std::unordered_map<const Value*, size_t> last_use;
  size_t index = 0;
  for (const Node* node : graph.nodes()) {
    for (const Value* input : node->inputs()) last_use[input] = index;
    ++index;
  }
  return last_use;
}

std::unordered_map<const Value*, IValue> MakeInputs(const torch::jit::Graph& graph, const LoadedModel::Impl& model) {
  std::unordered_map<const Value*, IValue> env;
  env[graph.inputs()[0]] = model.module._ivalue();
  const c10::Device device(model.device);
  for (size_t i = 0; i < model.inputs.size(); ++i) {
    const TensorSpec& spec = model.inputs[i];
    const auto options = at::TensorOptions().dtype(ToScalarType(spec.dtype)).device(device);
    if (IsFloating(spec.dtype)) {
      env[graph.inputs()[i + 1]] = at::randn(spec.shape, options);
    } else if (spec.dtype == DType::kBool) {
      env[graph.inputs()[i + 1]] = at::randint(0, 2, spec.shape, options);
    } else {
      env[graph.inputs()[i + 1]] = at::randint(spec.low, spec.high + 1, spec.shape, options);
    }
  }
  return env;
}

}  // namespace

StatusOr<ShapeRun> RunForShapes(const LoadedModel::Impl& model) {
  const torch::jit::Graph& graph = *model.graph;
  NIMBLE_RETURN_IF_ERROR(CheckInputs(graph, model));
  c10::InferenceMode no_autograd;
  std::unordered_map<const Value*, IValue> env = MakeInputs(graph, model);
  const auto last_use = LastUses(graph);
  ShapeRun run;
  size_t index = 0;
  for (const Node* node : graph.nodes()) {
    std::vector<IValue> inputs;
    inputs.reserve(node->inputs().size());
    for (const Value* input : node->inputs()) inputs.push_back(env.at(input));
    std::vector<IValue> outputs;
    try {
      outputs = RunNode(*node, inputs);
    } catch (const std::exception& e) {
      return InvalidArgument(model.path + ": input shape(s) " + ShapesText(SpecShapes(model.inputs)) +
                             " do not fit the model: " + DescribeNode(*node) + " failed: " + TorchMessage(e));
    }
    if (outputs.size() != node->outputs().size()) {
      return Internal(model.path + ": " + DescribeNode(*node) + " produced " + std::to_string(outputs.size()) +
                      " values where the graph has " + std::to_string(node->outputs().size()));
    }
    run[node] = NodeObservation{.output_shapes = "",
                                .outputs_alias_inputs = OutputsAliasInputs(inputs, outputs),
                                .some_output_aliases_input = SomeOutputAliasesInput(inputs, outputs),
                                .outputs_are_scalars = AllScalars(outputs),
                                .shape_query = std::nullopt};
    // Metadata reads that return numbers (sizes, strides, rank, dtype): constants once the input
    // shapes are fixed.
    if (RuleForKind(node->kind().toQualString()) == KindRule::kFoldMetadata && outputs.size() == 1 &&
        (outputs[0].isInt() || outputs[0].isIntList())) {
      run[node].shape_query = outputs[0];
    }
    if (outputs.size() == 1 && outputs[0].isTensor()) run[node].output_dtype = outputs[0].toTensor().scalar_type();
    for (size_t k = 0; k < outputs.size(); ++k) {
      run[node].output_shapes += (k ? ", " : "") + Describe(outputs[k]);
      if (node->outputs()[k]->hasUses()) env[node->outputs()[k]] = std::move(outputs[k]);
    }
    for (const Value* input : node->inputs()) {
      if (last_use.at(input) == index) env.erase(input);
    }
    ++index;
  }
  return run;
}

Status CheckInputShapes(const torch::jit::Graph& graph, const LoadedModel::Impl& model) {
  return CheckInputs(graph, model);
}

ValueEnv MakeRandomInputs(const torch::jit::Graph& graph, const LoadedModel::Impl& model) {
  return MakeInputs(graph, model);
}

std::vector<IValue> RunFrozenNode(const Node& node, std::vector<IValue> inputs) {
  return RunNode(node, std::move(inputs));
}

std::unordered_map<const Value*, size_t> LastUseIndex(const torch::jit::Graph& graph) { return LastUses(graph); }

std::string ShapeText(c10::IntArrayRef shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? "," : "") + std::to_string(shape[i]);
  return text + "]";
}

}  // namespace nimble::accelerate
