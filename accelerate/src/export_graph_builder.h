// Builds the forward graph of a torch::jit module from a serialized torch.export graph, node by
// node: each node becomes one call of the registered operator its target names (plus the constants
// and list constructions its arguments need, and a prim::ListUnpack for list results), so the
// interpreter dispatches it like a node of a frozen TorchScript graph.
// Invariants: a name is bound once; weights and inputs are never written in place (such a program is
// refused, since weights become shared constants). One builder per graph, used by one thread.
#pragma once

#include <ATen/Tensor.h>
#include <c10/core/Device.h>
#include <nlohmann/json.hpp>
#include <torch/csrc/jit/ir/ir.h>

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "export_arguments.h"
#include "nimble/core/status.h"

namespace nimble::accelerate {

class ExportGraphBuilder {
 public:
  // `graph` already has its `self` input; `serialized_graph` is graph_module.graph of the program;
  // `file` prefixes every message.
  ExportGraphBuilder(std::shared_ptr<torch::jit::Graph> graph, std::string file, c10::Device device,
                     const nlohmann::json& serialized_graph);

  // The placeholders of the program: a user input, a weight or tensor constant (inserted as a graph
  // constant; `what` names it in messages, "buffer 'bn.running_mean'"), a non-tensor constant input.
  Status BindUserInput(const std::string& name, torch::jit::Value* input);
  Status BindTensorConstant(const std::string& name, const at::Tensor& tensor, const std::string& what);
  Status BindConstant(const std::string& name, const c10::IValue& value);

  // One serialized node, appended to the graph. Errors name the file, the node and its target.
  Status AddNode(const nlohmann::json& node);

  // A graph output from a serialized Argument (a tensor name, None or a literal).
  StatusOr<torch::jit::Value*> OutputValue(const nlohmann::json& argument);

 private:
  // What a value is (a view of): set for weights, constants and user inputs, which must not be
  // written in place; absent for values the graph computes.
  struct Origin {
    bool is_user_input = false;
    std::string what;
  };

  struct ChosenOverload {
    std::shared_ptr<torch::jit::Operator> op;
    std::vector<PendingArgument> arguments;
  };

  StatusOr<ChosenOverload> ChooseOverload(const nlohmann::json& inputs, const std::string& qualified_name,
                                          const std::string& overload);
  StatusOr<std::optional<std::vector<PendingArgument>>> ConvertAll(const nlohmann::json& inputs,
                                                                   const c10::FunctionSchema& schema,
                                                                   ArgumentFit fit, bool names_must_match);
  Status CheckWrites(const c10::FunctionSchema& schema, const std::vector<torch::jit::Value*>& inputs) const;
  void PropagateOrigins(const c10::FunctionSchema& schema, const std::vector<torch::jit::Value*>& inputs,
                        const torch::jit::Node& node);
  Status BindOutputs(const nlohmann::json& outputs, const c10::FunctionSchema& schema, torch::jit::Node& node);
  Status Bind(const std::string& name, torch::jit::Value* value);
  ArgumentScope Scope() const { return {values_, static_symbols_, device_}; }

  std::shared_ptr<torch::jit::Graph> graph_;
  std::string file_;
  c10::Device device_;
  std::unordered_map<std::string, torch::jit::Value*> values_;
  std::unordered_map<std::string, c10::IValue> static_symbols_;
  std::unordered_map<const torch::jit::Value*, Origin> origins_;
};

}  // namespace nimble::accelerate
