// One serialized torch.export Argument (a JSON union: as_tensor, as_ints, as_scalar_type, ...) turned
// into what a torch::jit node takes for one formal of an operator schema: a constant, a value
// already in the graph, or a list built from values. Conversion does not touch the graph, so a
// caller can try several overloads and place only the arguments of the one that fits.
// Pure functions over the scope they are given; one graph is built by one thread.
#pragma once

#include <ATen/core/function_schema.h>
#include <ATen/core/ivalue.h>
#include <c10/core/Device.h>
#include <nlohmann/json.hpp>
#include <torch/csrc/jit/ir/ir.h>

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "nimble/core/status.h"

namespace nimble::accelerate {

// What an argument may refer to: values bound so far (tensors, and symbolic scalars some node
// computed) and the static values of the graph's symbols (sym_int_values that are plain integers).
struct ArgumentScope {
  const std::unordered_map<std::string, torch::jit::Value*>& values;
  const std::unordered_map<std::string, c10::IValue>& static_symbols;
  c10::Device device;  // device arguments (torch.arange(..., device=cpu)) move to the load device
};

// Exactly one of: a constant, an existing value, or a list of values (nullptr elements are None).
struct PendingArgument {
  c10::TypePtr type;
  std::optional<c10::IValue> constant;
  torch::jit::Value* value = nullptr;
  bool is_list = false;
  c10::TypePtr element_type;  // of the list
  std::vector<torch::jit::Value*> elements;
};

// kExact keeps the serialized kind: an int meant for a Tensor formal does not fit, so the caller
// looks for the overload that takes a Scalar there (aten::add.Tensor(x, 1) becomes aten::add.Scalar,
// as in scripted graphs). kLenient turns such a number into a 0-dim tensor constant and a bool for a
// Scalar formal into 0 or 1, for operators that have no such overload.
enum class ArgumentFit { kExact, kLenient };

// nullopt: the argument does not fit `formal` at `fit`. An error: the argument can never be
// converted (an unknown value name, a dynamic dimension, an unsupported kind); its message names the
// argument but not the node.
StatusOr<std::optional<PendingArgument>> ConvertArgument(const nlohmann::json& argument, const c10::Argument& formal,
                                                         ArgumentFit fit, const ArgumentScope& scope);

// The formal's default when the serialized node leaves it out (nullopt: it has none).
std::optional<PendingArgument> DefaultArgument(const c10::Argument& formal);

// A value for a graph output: a tensor name, None, a number or a string.
StatusOr<PendingArgument> ConvertOutputArgument(const nlohmann::json& argument, const ArgumentScope& scope);

// Inserts the constant or the list construction at the graph's insertion point.
torch::jit::Value* Materialize(torch::jit::Graph& graph, const PendingArgument& argument);

// The key of a JSON union ({"as_int": 3} -> "as_int"); empty when `j` is not a one-key object.
std::string UnionKind(const nlohmann::json& j);

// A serialized float: a JSON number, or "Infinity", "-Infinity", "NaN" (JSON has no literal for
// them). Throws nlohmann::json::type_error for anything else.
double JsonFloat(const nlohmann::json& j);

}  // namespace nimble::accelerate
