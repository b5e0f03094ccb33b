#include "conv_layout.h"

#include <ATen/core/ivalue.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>

#include <unordered_set>

#include "torch_errors.h"

namespace nimble::accelerate {
namespace {

bool IsConvolution(const torch::jit::Node& node) {
  static const c10::Symbol kinds[] = {
      c10::Symbol::fromQualString("aten::_convolution"),         c10::Symbol::fromQualString("aten::conv2d"),
      c10::Symbol::fromQualString("aten::convolution"),          c10::Symbol::fromQualString("aten::cudnn_convolution"),
      c10::Symbol::fromQualString("aten::cudnn_convolution_relu"),
      c10::Symbol::fromQualString("aten::cudnn_convolution_add_relu")};
  for (const c10::Symbol kind : kinds) {
    if (node.kind() == kind) return node.inputs().size() > 1;
  }
  return false;
}

// The constant 4-D weight of a convolution, or nullptr.
torch::jit::Node* WeightConstant(const torch::jit::Node& conv) {
  torch::jit::Node* weight = conv.input(1)->node();
  if (weight->kind() != c10::prim::Constant || !weight->output()->type()->cast<c10::TensorType>()) return nullptr;
  if (!weight->hasAttribute(c10::attr::value)) return nullptr;
  const at::Tensor& tensor = weight->t(c10::attr::value);
  return tensor.dim() == 4 ? weight : nullptr;
}

int64_t Groups(const torch::jit::Node& conv) {
  if (!conv.maybeSchema()) return 1;
  const std::optional<c10::IValue> groups =
      torch::jit::toIValue(const_cast<torch::jit::Node&>(conv).namedInput(c10::Symbol::attr("groups")));
  return groups && groups->isInt() ? groups->toInt() : 1;
}

// Whether `value` flows into any of `targets` through the top block's data edges.
bool ReachesAny(torch::jit::Value* value, const std::unordered_set<const torch::jit::Node*>& targets) {
  std::vector<torch::jit::Value*> pending{value};
  std::unordered_set<const torch::jit::Value*> seen{value};
  while (!pending.empty()) {
    torch::jit::Value* current = pending.back();
    pending.pop_back();
    for (const torch::jit::Use& use : current->uses()) {
      if (targets.contains(use.user)) return true;
      for (torch::jit::Value* out : use.user->outputs()) {
        if (seen.insert(out).second) pending.push_back(out);
      }
    }
  }
  return false;
}

}  // namespace

ConvSummary SummarizeConvolutions(const torch::jit::Graph& graph) {
  ConvSummary summary;
  for (const torch::jit::Node* node : graph.nodes()) {
    if (!IsConvolution(*node)) continue;
    const torch::jit::Node* weight = WeightConstant(*node);
    if (weight == nullptr) continue;
    const at::Tensor& tensor = weight->t(c10::attr::value);
    ++summary.convolutions;
    if (tensor.scalar_type() == at::kHalf || tensor.scalar_type() == at::kBFloat16) ++summary.half;
    if (Groups(*node) > 1 && tensor.size(1) == 1) ++summary.depthwise;
  }
  return summary;
}

bool ChannelsLastPays(const ConvSummary& summary) { return summary.half > 0 && summary.depthwise == 0; }

bool LayoutUndecided(const ConvSummary& summary) { return summary.half > 0 && summary.depthwise > 0; }

StatusOr<bool> ConvertToChannelsLast(std::shared_ptr<torch::jit::Graph>& graph, const std::vector<TensorSpec>& inputs,
                                     const std::string& path) {
  try {
    std::unordered_set<const torch::jit::Node*> convolutions;
    for (torch::jit::Node* node : graph->nodes()) {
      if (!IsConvolution(*node)) continue;
      torch::jit::Node* weight = WeightConstant(*node);
      if (weight == nullptr) continue;
      convolutions.insert(node);
      const at::Tensor tensor = weight->t(c10::attr::value);
      if (tensor.is_contiguous(at::MemoryFormat::ChannelsLast)) continue;  // 1x1 kernels, or NHWC already
      const at::Tensor nhwc = tensor.contiguous(at::MemoryFormat::ChannelsLast);
      if (weight->output()->uses().size() == 1) {
        weight->t_(c10::attr::value, nhwc);
        weight->output()->setType(c10::TensorType::create(nhwc));
      } else {
        // Another reader (a view of the weight, say) keeps the layout it was written for.
        torch::jit::WithInsertPoint at_conv(node);
        node->replaceInput(1, graph->insertConstant(nhwc));
      }
    }
    if (convolutions.empty()) return false;
    // The k-th tensor input of the graph is forward's k-th argument (a TorchScript graph's `self` is
    // a module, not a tensor). Only inputs some convolution reads, directly or through other ops, are
    // converted: another 4-D input keeps its layout, which a view of it may need.
    size_t argument = 0;
    const std::vector<torch::jit::Value*> graph_inputs(graph->inputs().begin(), graph->inputs().end());
    for (torch::jit::Value* input : graph_inputs) {
      if (!input->type()->cast<c10::TensorType>()) continue;
      const size_t index = argument++;
      if (index >= inputs.size() || inputs[index].shape.size() != 4 || !IsFloating(inputs[index].dtype)) continue;
      if (!ReachesAny(input, convolutions)) continue;
      torch::jit::WithInsertPoint front(*graph->nodes().begin());
      torch::jit::Value* format = graph->insertConstant(static_cast<int64_t>(at::MemoryFormat::ChannelsLast));
      torch::jit::Value* nhwc =
          graph->insert(c10::aten::contiguous, {input}, {torch::jit::NamedValue("memory_format", format)});
      input->replaceAllUsesAfterNodeWith(nhwc->node(), nhwc);
    }
    torch::jit::EliminateDeadCode(graph);
    return true;
  } catch (const std::exception& e) {
    return Internal(path + ": converting the convolutions to channels_last failed: " + TorchMessage(e));
  }
}

}  // namespace nimble::accelerate
