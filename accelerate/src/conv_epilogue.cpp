#include "conv_epilogue.h"

#include <ATen/ATen.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "conv_epilogue_kernel.h"
#include "stream_context.h"
#include "tensor_types.h"

namespace nimble::accelerate {
namespace {

using torch::jit::Node;
using torch::jit::Value;

bool Is(const Node* node, const char* kind) { return node->kind() == c10::Symbol::fromQualString(kind); }

std::optional<c10::IValue> Constant(Value* value) { return torch::jit::toIValue(value); }

bool IsConstantNumber(Value* value, double expected) {
  const std::optional<c10::IValue> constant = Constant(value);
  if (!constant) return false;
  if (constant->isInt()) return static_cast<double>(constant->toInt()) == expected;
  if (constant->isDouble()) return constant->toDouble() == expected;
  return false;
}

bool IsTensor(const Value* value) { return value->type()->cast<c10::TensorType>() != nullptr; }

// A forward convolution with a bias value: aten::_convolution (traced), aten::convolution, or
// aten::conv1d/2d/3d (scripted, torch.export). Its groups through `groups`.
bool IsBiasedConvolution(Node* node, int64_t* groups) {
  size_t groups_index = 0;
  if (Is(node, "aten::_convolution") && node->inputs().size() == 13) {
    groups_index = 8;
  } else if (Is(node, "aten::convolution") && node->inputs().size() == 9) {
    groups_index = 8;
  } else if ((Is(node, "aten::conv1d") || Is(node, "aten::conv2d") || Is(node, "aten::conv3d")) &&
             node->inputs().size() == 7) {
    groups_index = 6;
  } else {
    return false;
  }
  if (groups_index == 8) {  // the transposed flag
    const std::optional<c10::IValue> transposed = Constant(node->input(6));
    if (!transposed || !transposed->isBool() || transposed->toBool()) return false;
  }
  const std::optional<c10::IValue> g = Constant(node->input(groups_index));
  if (!g || !g->isInt()) return false;
  *groups = g->toInt();
  return IsTensor(node->input(2)) && IsTensor(node->output());
}

Node* OnlyReader(Value* value) { return value->uses().size() == 1 ? value->uses()[0].user : nullptr; }

// `node` adds a tensor to `value` with alpha 1, leaving the sum in a new tensor or in `value`: the
// other operand's input index, else nullopt.
std::optional<size_t> ResidualOf(Node* node, Value* value) {
  const bool in_place = Is(node, "aten::add_");
  if ((!in_place && !Is(node, "aten::add")) || node->inputs().size() != 3) return std::nullopt;
  if (!IsConstantNumber(node->input(2), 1.0)) return std::nullopt;
  std::optional<size_t> other;
  if (node->input(0) == value) {
    other = 1;
  } else if (!in_place && node->input(1) == value) {
    other = 0;
  }
  if (!other || node->input(*other) == value || !IsTensor(node->input(*other))) return std::nullopt;
  return other;
}

// `node` applies an activation the epilogue knows to `value`, in place or not.
std::optional<EpilogueActivation> ActivationOf(Node* node, Value* value) {
  if (node->inputs().empty() || node->input(0) != value) return std::nullopt;
  const bool one = node->inputs().size() == 1;
  if (one && (Is(node, "aten::relu") || Is(node, "aten::relu_"))) return EpilogueActivation::kRelu;
  if (one && (Is(node, "aten::relu6") || Is(node, "aten::relu6_"))) return EpilogueActivation::kRelu6;
  if (one && (Is(node, "aten::silu") || Is(node, "aten::silu_"))) return EpilogueActivation::kSilu;
  if ((Is(node, "aten::hardtanh") || Is(node, "aten::hardtanh_")) && node->inputs().size() == 3 &&
      IsConstantNumber(node->input(1), 0.0) && IsConstantNumber(node->input(2), 6.0)) {
    return EpilogueActivation::kRelu6;
  }
  return std::nullopt;
}

// What the shape run saw of each tensor value made alone by a node, and of each graph input.
struct Observed {
  std::string shape;  // "[1,64,56,56]"
  c10::ScalarType dtype;
};
using ValueShapes = std::unordered_map<const Value*, Observed>;

ValueShapes ObservedShapes(const LoadedModel::Impl& model, const ShapeRun& run) {
  ValueShapes shapes;
  for (const auto& [node, observation] : run) {
    if (node->outputs().size() == 1 && observation.output_dtype) {
      shapes[node->output()] = Observed{observation.output_shapes, *observation.output_dtype};
    }
  }
  const auto args = model.graph->inputs().slice(1);  // input 0 is the module
  for (size_t i = 0; i < args.size() && i < model.inputs.size(); ++i) {
    shapes[args[i]] = Observed{ShapeText(model.inputs[i].shape), ToScalarType(model.inputs[i].dtype)};
  }
  return shapes;
}

// One shape and one dtype: the add neither broadcasts nor promotes, so its sum can be written in place.
bool SameShapeAndDtype(const ValueShapes& shapes, const Value* a, const Value* b) {
  const auto first = shapes.find(a);
  const auto second = shapes.find(b);
  return first != shapes.end() && second != shapes.end() && first->second.shape == second->second.shape &&
         first->second.dtype == second->second.dtype;
}

// The convolution's output has a batch dimension, so that dim 1 is its channels: its rank (seen by the
// shape run) is its constant weight's. conv1d/2d/3d also take unbatched inputs, whose outputs start
// with the channels.
bool Batched(Node* conv, const ValueShapes& shapes) {
  const std::optional<c10::IValue> weight = Constant(conv->input(1));
  const auto shape = shapes.find(conv->output());
  if (!weight || !weight->isTensor() || shape == shapes.end()) return false;
  const std::string& text = shape->second.shape;
  if (text.size() < 2 || text.front() != '[' || text.back() != ']') return false;
  const int64_t rank = 1 + std::count(text.begin(), text.end(), ',');
  return rank >= 2 && rank == weight->toTensor().dim();
}

// Nodes, not values, so that a tail whose residual is another tail's result stays valid after that
// tail is rewritten.
struct Tail {
  Node* conv = nullptr;
  bool move_bias = true;  // false for grouped convolutions, which keep their bias
  Node* add = nullptr;
  size_t residual_input = 0;  // which input of `add` is the residual
  Node* activation = nullptr;
  EpilogueActivation kind = EpilogueActivation::kNone;
};

Tail TailOf(Node* conv, const ValueShapes& shapes) {
  Tail tail{.conv = conv};
  Value* value = conv->output();
  Node* reader = OnlyReader(value);
  if (reader == nullptr) return tail;
  const std::optional<size_t> residual = ResidualOf(reader, value);
  if (residual && SameShapeAndDtype(shapes, value, reader->input(*residual))) {
    tail.add = reader;
    tail.residual_input = *residual;
    value = reader->output();
    reader = OnlyReader(value);
    if (reader == nullptr) return tail;
  }
  if (const std::optional<EpilogueActivation> kind = ActivationOf(reader, value)) {
    tail.activation = reader;
    tail.kind = *kind;
  }
  return tail;
}

kernels::EpilogueActivation KernelActivation(EpilogueActivation kind) {
  switch (kind) {
    case EpilogueActivation::kNone: return kernels::EpilogueActivation::kNone;
    case EpilogueActivation::kRelu: return kernels::EpilogueActivation::kRelu;
    case EpilogueActivation::kRelu6: return kernels::EpilogueActivation::kRelu6;
    case EpilogueActivation::kSilu: return kernels::EpilogueActivation::kSilu;
  }
  return kernels::EpilogueActivation::kNone;
}

std::optional<kernels::EpilogueDtype> KernelDtype(c10::ScalarType type) {
  switch (type) {
    case c10::kFloat: return kernels::EpilogueDtype::kFloat32;
    case c10::kHalf: return kernels::EpilogueDtype::kFloat16;
    case c10::kBFloat16: return kernels::EpilogueDtype::kBFloat16;
    default: return std::nullopt;
  }
}

// Whether the kernel takes these tensors: one dense CUDA tensor, a contiguous [C] bias and a residual
// with self's sizes and strides, all of one supported dtype on one device. A dense tensor's element at
// memory offset o lies in channel (o / stride(1)) % C whatever the order of its dimensions.
bool KernelTakes(const at::Tensor& self, const std::optional<at::Tensor>& bias, const std::optional<at::Tensor>& other) {
  if (!self.is_cuda() || self.dim() < 2 || !KernelDtype(self.scalar_type()) || !self.is_non_overlapping_and_dense()) {
    return false;
  }
  if (bias && (bias->device() != self.device() || bias->scalar_type() != self.scalar_type() || bias->dim() != 1 ||
               bias->size(0) != self.size(1) || !bias->is_contiguous())) {
    return false;
  }
  if (other && (other->device() != self.device() || other->scalar_type() != self.scalar_type() ||
                other->sizes() != self.sizes() || other->strides() != self.strides())) {
    return false;
  }
  return true;
}

}  // namespace

at::Tensor ConvEpilogueOp(at::Tensor self, const std::optional<at::Tensor>& bias,
                          const std::optional<at::Tensor>& other, int64_t activation) {
  TORCH_CHECK(activation >= 0 && activation <= static_cast<int64_t>(EpilogueActivation::kSilu),
              "nimble::conv_epilogue_: unknown activation ", activation);
  TORCH_CHECK(self.dim() >= 2, "nimble::conv_epilogue_: a convolution's output has a channel dimension, got ",
              self.dim(), " dimensions");
  TORCH_CHECK(!other || other->scalar_type() == self.scalar_type(), "nimble::conv_epilogue_: the residual is ",
              other ? c10::toString(other->scalar_type()) : "", ", the convolution's output ",
              c10::toString(self.scalar_type()));
  const auto kind = static_cast<EpilogueActivation>(activation);
  if (KernelTakes(self, bias, other)) {
    const c10::cuda::CUDAGuard device(self.device());  // registered operators get no device guard
    kernels::ConvEpilogueArgs args;
    args.x = self.data_ptr();
    args.bias = bias ? bias->data_ptr() : nullptr;
    args.other = other ? other->data_ptr() : nullptr;
    args.numel = self.numel();
    args.channels = self.size(1);
    args.channel_stride = std::max<int64_t>(self.stride(1), 1);
    args.dtype = *KernelDtype(self.scalar_type());
    args.activation = KernelActivation(kind);
    const cudaError_t status =
        kernels::LaunchConvEpilogue(args, c10::cuda::getCurrentCUDAStream(self.device().index()).stream());
    TORCH_CHECK(status == cudaSuccess, "nimble::conv_epilogue_: ", cudaGetErrorName(status), " (",
                cudaGetErrorString(status), ")");
    return self;
  }
  // ATen's own kernels, in the order the graph ran them before the rewrite.
  if (bias) {
    std::vector<int64_t> shape(static_cast<size_t>(self.dim()), 1);
    shape[1] = bias->numel();
    self.add_(bias->reshape(shape));
  }
  if (other) self.add_(*other);
  switch (kind) {
    case EpilogueActivation::kNone: break;
    case EpilogueActivation::kRelu: self.relu_(); break;
    case EpilogueActivation::kRelu6: at::hardtanh_(self, 0.0, 6.0); break;
    case EpilogueActivation::kSilu: at::silu_(self); break;
  }
  return self;
}

int32_t FuseConvEpilogues(LoadedModel::Impl& model, const ShapeRun& run) {
  RegisterNimbleOps();  // the graph is run next, and the operator is registered beside the others
  const std::shared_ptr<torch::jit::Graph>& graph = model.graph;
  const ValueShapes shapes = ObservedShapes(model, run);
  // Every tail is found before any is rewritten, while the shapes still describe the graph. Where two
  // convolutions are added (a block and its downsampling shortcut), both see the add as their tail:
  // the first in graph order takes it, and the other keeps its bias.
  std::vector<Tail> tails;
  std::unordered_set<const Node*> taken;
  for (Node* node : graph->nodes()) {
    int64_t groups = 0;
    if (!IsBiasedConvolution(node, &groups)) continue;
    if (!Batched(node, shapes)) continue;
    Tail tail = TailOf(node, shapes);
    if ((tail.add != nullptr && taken.contains(tail.add)) ||
        (tail.activation != nullptr && taken.contains(tail.activation))) {
      tail = Tail{.conv = node};
    }
    // A grouped convolution keeps its bias: ATen's depthwise kernel adds it inside the convolution's
    // sum, so moving it out would round differently. Only the rest of its tail moves.
    tail.move_bias = groups == 1;
    const int kernels_replaced = tail.move_bias + (tail.add != nullptr) + (tail.activation != nullptr);
    if (kernels_replaced < 2) continue;  // one kernel for one saves nothing
    if (tail.add != nullptr) taken.insert(tail.add);
    if (tail.activation != nullptr) taken.insert(tail.activation);
    tails.push_back(tail);
  }
  if (tails.empty()) return 0;
  Value* none = nullptr;
  {
    torch::jit::WithInsertPoint front(*graph->nodes().begin());
    none = graph->insertConstant(c10::IValue());
  }
  for (const Tail& tail : tails) {
    Node* conv = tail.conv;
    Node* first = tail.add != nullptr ? tail.add : tail.activation;
    Node* last = tail.activation != nullptr ? tail.activation : tail.add;
    torch::jit::WithInsertPoint at(first);
    Value* kind = graph->insertConstant(static_cast<int64_t>(tail.kind));
    Value* residual = tail.add != nullptr ? tail.add->input(tail.residual_input) : none;
    Node* epilogue = graph->create(c10::Symbol::fromQualString("nimble::conv_epilogue_"),
                                   {conv->output(), tail.move_bias ? conv->input(2) : none, residual, kind}, 1);
    graph->insertNode(epilogue);
    epilogue->output()->setType(conv->output()->type());
    epilogue->copyMetadata(last);
    if (tail.move_bias) conv->replaceInput(2, none);
    last->output()->replaceAllUsesWith(epilogue->output());
    if (tail.activation != nullptr) tail.activation->destroy();
    if (tail.add != nullptr) tail.add->destroy();
  }
  torch::jit::EliminateDeadCode(graph);
  return static_cast<int32_t>(tails.size());
}

}  // namespace nimble::accelerate
