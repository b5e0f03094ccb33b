#include "model_loader.h"

#include <ATen/Context.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/passes/constant_propagation.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>
#include <torch/csrc/jit/passes/freeze_module.h>
#include <torch/csrc/jit/passes/frozen_conv_add_relu_fusion.h>
#include <torch/csrc/jit/passes/frozen_graph_optimizations.h>
#include <torch/csrc/jit/passes/loop_unrolling.h>
#include <torch/csrc/jit/passes/remove_mutation.h>
#include <torch/csrc/jit/serialization/import.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "conv_layout.h"
#include "export_program.h"
#include "gelu_fusion.h"
#include "loaded_model_impl.h"
#include "node_names.h"
#include "torch_errors.h"

namespace nimble::accelerate {
namespace {

namespace fs = std::filesystem;
using torch::jit::Graph;
using torch::jit::Module;

// TorchScript files and torch.export programs are zip archives. Checking the first bytes ourselves tells a corrupt or foreign
// file from a zip that is not TorchScript, which libtorch's messages do not do reliably.
Status CheckModelFile(const std::string& path) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (!fs::exists(status)) return NotFound(path + ": no such file");
  if (!fs::is_regular_file(status)) return FailedPrecondition(path + ": not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) return PermissionDenied(path + ": cannot be opened for reading");
  char magic[4] = {};
  in.read(magic, sizeof(magic));
  if (in.gcount() == 0) {
    return DataLoss(path + ": the file is empty; expected a TorchScript archive or a torch.export program");
  }
  if (in.gcount() < 4 || std::memcmp(magic, "PK\x03\x04", 4) != 0) {
    return DataLoss(path + ": not a TorchScript archive or torch.export program (both are zip archives; this "
                    "file does not start like one, so it is corrupt or of another kind)");
  }
  return OkStatus();
}

StatusOr<c10::Device> ParseDevice(const std::string& device) {
  try {
    c10::Device parsed(device);
    if (parsed.is_cuda() && !at::hasCUDA()) {
      return Unavailable("device '" + device + "' requested but no CUDA device is available");
    }
    if (!parsed.is_cuda() && !parsed.is_cpu()) {
      return InvalidArgument("device '" + device + "': only cpu and cuda are supported");
    }
    return parsed;
  } catch (const std::exception& e) {
    return InvalidArgument("bad device '" + device + "': " + TorchMessage(e));
  }
}

StatusOr<Module> LoadArchive(const std::string& path, c10::Device device) {
  try {
    return torch::jit::load(path, device);
  } catch (const std::exception& e) {
    std::string reason = TorchMessage(e);
    // Drop the reader's generic advice that follows the reason; ours says the same in fewer words.
    const size_t advice = reason.find(" This is an internal miniz error");
    if (advice != std::string::npos) reason.resize(advice);
    // The zip layer failing means damage; anything past it means a zip of the wrong kind
    // (a torch.save'd state dict, an unrelated archive).
    if (reason.find("zip archive") != std::string::npos || reason.find("central directory") != std::string::npos) {
      return DataLoss(path + ": corrupt or truncated TorchScript archive: " + reason);
    }
    return FailedPrecondition(path + ": not a TorchScript module (export it with torch.jit.script or "
                              "torch.jit.trace, then .save()): " + reason);
  }
}

StatusOr<Module> Freeze(Module module, const std::string& path, bool optimize) {
  try {
    if (!module.find_method("forward")) return InvalidArgument(path + ": the module has no forward method");
    // Freezing refuses modules in training mode; dropout and batch norm must also see eval.
    if (module.hasattr("training")) module.eval();
    return torch::jit::freeze(module, std::nullopt, /*optimize_numerics=*/optimize);
  } catch (const std::exception& e) {
    return InvalidArgument(path + ": cannot freeze the module: " + TorchMessage(e));
  }
}

// Makes the graph straight-line where it is static, and applies the optional optimizations.
Status Simplify(std::shared_ptr<Graph>& graph, const std::string& path, bool optimize, bool fuse) {
  try {
    // Loops with a constant trip count become straight-line code; branches on constants go away.
    torch::jit::UnrollConstantLoops(graph);
    torch::jit::ConstantPropagation(graph);
    // `xs = []; xs.append(a)` becomes one list construction, so list values carry their producers.
    torch::jit::RemoveListMutation(graph);
    if (optimize) {
      // GELU's tanh approximation written out element by element becomes one aten::gelu kernel.
      FuseTanhGelu(graph);
    }
    if (fuse) {
      // Of what torch::jit::optimize_for_inference adds to freezing, only the fusion of conv with a
      // following add and relu into one cuDNN call. It applies to CUDA weights only, so CPU and GPU
      // graphs differ there alone. Not run: the MKLDNN conversion (CPU layouts) and the linear
      // transpose (on the GPU it replaces one addmm kernel with a matmul and an add).
      torch::jit::FuseFrozenConvAddRelu(graph);
    }
    torch::jit::EliminateDeadCode(graph);
    return OkStatus();
  } catch (const std::exception& e) {
    return Internal(path + ": simplifying the frozen graph failed: " + TorchMessage(e));
  }
}

// aten::_convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
// groups, benchmark, deterministic, cudnn_enabled, allow_tf32): the last argument, fixed by the tracer.
constexpr size_t kConvolutionArgs = 13;
constexpr size_t kConvolutionAllowTf32 = 12;

// Sets allow_tf32 of every traced convolution to `tf32` (FrontEndOptions::tf32).
Status SetConvolutionPrecision(std::shared_ptr<Graph>& graph, const std::string& path, bool tf32) {
  try {
    torch::jit::Value* flag = nullptr;
    for (torch::jit::Node* node : graph->nodes()) {
      if (node->kind() != c10::Symbol::fromQualString("aten::_convolution")) continue;
      if (node->inputs().size() != kConvolutionArgs) continue;
      if (flag == nullptr) {
        torch::jit::WithInsertPoint front(*graph->nodes().begin());
        flag = graph->insertConstant(tf32);
      }
      node->replaceInput(kConvolutionAllowTf32, flag);
    }
    torch::jit::EliminateDeadCode(graph);
    return OkStatus();
  } catch (const std::exception& e) {
    return Internal(path + ": setting the convolutions' precision failed: " + TorchMessage(e));
  }
}

// A .pt2 program arrives frozen already (weights are constants); what torch::jit::freeze adds on top of
// that with optimize_numerics, conv-batchnorm and conv-add/mul folding among them, runs here.
Status OptimizeExported(std::shared_ptr<Graph>& graph, const std::string& path) {
  try {
    // The exporter's checks of input metadata: no GPU work, no outputs, and they would block folding.
    for (auto it = graph->nodes().begin(); it != graph->nodes().end();) {
      torch::jit::Node* node = *it++;
      const std::string kind = node->kind().toQualString();
      if ((kind == "aten::_assert_tensor_metadata" || kind == "aten::_assert_scalar") && !node->hasUses()) {
        node->destroy();
      }
    }
    torch::jit::OptimizeFrozenGraph(graph, /*optimize_numerics=*/true);
    return OkStatus();
  } catch (const std::exception& e) {
    return Internal(path + ": optimizing the exported graph failed: " + TorchMessage(e));
  }
}

bool IsHalfPrecision(c10::ScalarType type) {
  return type == c10::ScalarType::Half || type == c10::ScalarType::BFloat16;
}

// FrontEndOptions::widen_to_float32: float16 and bfloat16 constants become float32 tensors, and constant
// dtype arguments (of schema type ScalarType) that name them name float32.
Status WidenToFloat32(std::shared_ptr<Graph>& graph, const std::string& path) {
  try {
    const std::vector<torch::jit::Node*> nodes(graph->nodes().begin(), graph->nodes().end());
    for (torch::jit::Node* node : nodes) {
      if (node->kind() == c10::prim::Constant) {
        if (!node->hasAttribute(c10::attr::value) || node->kindOf(c10::attr::value) != torch::jit::AttributeKind::t) {
          continue;
        }
        const at::Tensor& tensor = node->t(c10::attr::value);
        if (!IsHalfPrecision(tensor.scalar_type())) continue;
        torch::jit::WithInsertPoint here(node);
        node->output()->replaceAllUsesWith(graph->insertConstant(tensor.to(at::kFloat)));
        continue;
      }
      const c10::FunctionSchema* schema = node->maybeSchema();
      if (schema == nullptr) continue;
      for (size_t i = 0; i < node->inputs().size() && i < schema->arguments().size(); ++i) {
        c10::TypePtr type = schema->arguments()[i].real_type();  // type() says int for a ScalarType
        if (const auto optional = type->cast<c10::OptionalType>()) type = optional->getElementType();
        if (type->kind() != c10::TypeKind::ScalarTypeType) continue;
        const std::optional<c10::IValue> value = torch::jit::toIValue(node->input(i));
        if (!value || !value->isInt() || !IsHalfPrecision(static_cast<c10::ScalarType>(value->toInt()))) continue;
        torch::jit::WithInsertPoint here(node);
        node->replaceInput(i, graph->insertConstant(static_cast<int64_t>(c10::ScalarType::Float)));
      }
    }
    torch::jit::EliminateDeadCode(graph);
    return OkStatus();
  } catch (const std::exception& e) {
    return Internal(path + ": widening the model to float32 failed: " + TorchMessage(e));
  }
}

void CountTensors(const c10::IValue& value, LoadedModel::Impl* impl) {
  if (value.isTensor()) {
    const at::Tensor& tensor = value.toTensor();
    if (tensor.scalar_type() == at::kFloat) impl->float32_weights += tensor.numel();
    if (IsHalfPrecision(tensor.scalar_type())) impl->half_weights += tensor.numel();
  } else if (value.isList()) {
    for (const c10::IValue& element : value.toListRef()) CountTensors(element, impl);
  } else if (value.isTuple()) {
    for (const c10::IValue& element : value.toTupleRef().elements()) CountTensors(element, impl);
  }
}

// Elements of the graph's floating-point tensor constants (the frozen weights, lists of them such as a
// recurrent layer's included), float32 and half precision.
void CountWeights(const Graph& graph, LoadedModel::Impl* impl) {
  for (const torch::jit::Node* node : graph.nodes()) {
    if (node->kind() != c10::prim::Constant || !node->hasAttribute(c10::attr::value)) continue;
    if (const std::optional<c10::IValue> value = torch::jit::toIValue(node->output())) CountTensors(*value, impl);
  }
}

Status CheckStraightLine(const Graph& graph, const std::string& path) {
  for (const torch::jit::Node* node : graph.nodes()) {
    if (node->blocks().empty()) continue;
    return FailedPrecondition(path + ": dynamic control flow at " + DescribeNode(*node) +
                              ": cannot be scheduled ahead of time");
  }
  return OkStatus();
}

}  // namespace

std::string_view MemoryFormatName(MemoryFormat format) {
  switch (format) {
    case MemoryFormat::kAuto: return "auto";
    case MemoryFormat::kContiguous: return "contiguous";
    case MemoryFormat::kChannelsLast: return "channels_last";
  }
  return "auto";
}

std::optional<MemoryFormat> ParseMemoryFormat(std::string_view name) {
  for (const MemoryFormat format : {MemoryFormat::kAuto, MemoryFormat::kContiguous, MemoryFormat::kChannelsLast}) {
    if (name == MemoryFormatName(format)) return format;
  }
  return std::nullopt;
}

StatusOr<std::shared_ptr<LoadedModel::Impl>> LoadFrozenModel(const std::string& path,
                                                             const std::vector<TensorSpec>& inputs,
                                                             const FrontEndOptions& options) {
  NIMBLE_RETURN_IF_ERROR(CheckModelFile(path));
  StatusOr<c10::Device> parsed = ParseDevice(options.device);
  if (!parsed.ok()) return parsed.status().WithContext(path);
  const c10::Device device = *parsed;
  auto impl = std::make_shared<LoadedModel::Impl>();
  impl->path = path;
  impl->device = device.str();
  impl->inputs = inputs;
  if (LooksLikeExportArchive(path)) {
    NIMBLE_ASSIGN_OR_RETURN(impl->module, LoadExportProgram(path, device, nullptr));
    impl->graph = impl->module.get_method("forward").graph();
    if (options.optimize) NIMBLE_RETURN_IF_ERROR(OptimizeExported(impl->graph, path));
  } else {
    NIMBLE_ASSIGN_OR_RETURN(Module loaded, LoadArchive(path, device));
    NIMBLE_ASSIGN_OR_RETURN(impl->module, Freeze(std::move(loaded), path, options.optimize));
    impl->graph = impl->module.get_method("forward").graph();
  }
  NIMBLE_RETURN_IF_ERROR(Simplify(impl->graph, path, options.optimize, options.optimize && options.cuda_fusions));
  CountWeights(*impl->graph, impl.get());
  if (options.widen_to_float32) NIMBLE_RETURN_IF_ERROR(WidenToFloat32(impl->graph, path));
  const ConvSummary convolutions = SummarizeConvolutions(*impl->graph);
  const bool channels_last = options.memory_format == MemoryFormat::kChannelsLast ||
                             (options.memory_format == MemoryFormat::kAuto && ChannelsLastPays(convolutions));
  impl->layout_open = options.memory_format == MemoryFormat::kAuto && LayoutUndecided(convolutions);
  if (channels_last) {
    NIMBLE_ASSIGN_OR_RETURN(impl->channels_last, ConvertToChannelsLast(impl->graph, inputs, path));
  }
  NIMBLE_RETURN_IF_ERROR(SetConvolutionPrecision(impl->graph, path, options.tf32));
  NIMBLE_RETURN_IF_ERROR(CheckStraightLine(*impl->graph, path));
  return impl;
}

}  // namespace nimble::accelerate
