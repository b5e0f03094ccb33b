#include "static_shapes.h"

#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/passes/constant_propagation.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>

#include <vector>

#include "torch_errors.h"

namespace nimble::accelerate {

StatusOr<int32_t> FoldShapeQueries(LoadedModel::Impl& model, const ShapeRun& run) {
  torch::jit::Graph& graph = *model.graph;
  std::vector<std::pair<torch::jit::Node*, c10::IValue>> queries;
  for (torch::jit::Node* node : graph.nodes()) {
    const auto it = run.find(node);
    if (it != run.end() && it->second.shape_query.has_value()) queries.emplace_back(node, *it->second.shape_query);
  }
  if (queries.empty()) return 0;
  try {
    for (auto& [node, value] : queries) {
      torch::jit::WithInsertPoint here(node);
      torch::jit::Value* constant = graph.insertConstant(value);
      node->output()->replaceAllUsesWith(constant);
    }
    torch::jit::ConstantPropagation(model.graph);
    torch::jit::EliminateDeadCode(model.graph);
  } catch (const std::exception& e) {
    return Internal(model.path + ": folding shape queries into constants failed: " + TorchMessage(e));
  }
  return static_cast<int32_t>(queries.size());
}

}  // namespace nimble::accelerate
