// Node targets look like "torch.ops.aten.convolution.default": namespace, operator, overload
// ("default" is the unnamed overload). Arguments are serialized by schema name, and those left at
// their defaults are omitted, so they are placed in schema order with the defaults filled in.
#include "export_graph_builder.h"

#include <torch/csrc/jit/runtime/operator.h>

#include <algorithm>
#include <utility>

namespace nimble::accelerate {
namespace {

using nlohmann::json;
using torch::jit::Node;
using torch::jit::Value;

constexpr std::string_view kOpsPrefix = "torch.ops.";

struct Target {
  std::string ns;
  std::string name;
  std::string overload;  // "" for "default"
};

StatusOr<Target> ParseTarget(const std::string& target) {
  if (!target.starts_with(kOpsPrefix)) {
    return Unimplemented("not a registered operator (only torch.ops.* targets are supported; Python-level "
                         "targets such as operator.* on sizes come from dynamic shapes)");
  }
  const std::string rest = target.substr(kOpsPrefix.size());
  const size_t first = rest.find('.');
  const size_t last = rest.rfind('.');
  if (first == std::string::npos) return DataLoss("malformed operator target");
  Target parsed;
  parsed.ns = rest.substr(0, first);
  if (parsed.ns == "higher_order") {
    return Unimplemented("higher-order operator '" + rest.substr(first + 1) +
                         "' (control flow or a nested region) is not supported: the program must be "
                         "straight-line ATen operators");
  }
  if (first == last) return DataLoss("malformed operator target (no overload)");
  parsed.name = rest.substr(first + 1, last - first - 1);
  parsed.overload = rest.substr(last + 1);
  if (parsed.overload == "default") parsed.overload.clear();
  return parsed;
}

std::string Label(const json& node, const std::string& target) {
  const json& name = node.contains("name") ? node.at("name") : json();
  return "node '" + (name.is_string() ? name.get<std::string>() : std::string("?")) + "' (" + target + ")";
}

// Every alias set an argument or return names, including those of list elements ("Tensor(a)[]").
void CollectAliasSets(const c10::AliasInfo* info, std::vector<c10::Symbol>* sets) {
  if (info == nullptr) return;
  sets->insert(sets->end(), info->beforeSets().begin(), info->beforeSets().end());
  for (const c10::AliasInfo& contained : info->containedTypes()) CollectAliasSets(&contained, sets);
}

bool Writes(const c10::AliasInfo* info) {
  if (info == nullptr) return false;
  if (info->isWrite()) return true;
  return std::any_of(info->containedTypes().begin(), info->containedTypes().end(),
                     [](const c10::AliasInfo& contained) { return Writes(&contained); });
}

bool SharesAliasSet(const c10::Argument& a, const c10::Argument& b) {
  std::vector<c10::Symbol> a_sets;
  std::vector<c10::Symbol> b_sets;
  CollectAliasSets(a.alias_info(), &a_sets);
  CollectAliasSets(b.alias_info(), &b_sets);
  return std::any_of(a_sets.begin(), a_sets.end(), [&](c10::Symbol set) {
    return std::find(b_sets.begin(), b_sets.end(), set) != b_sets.end();
  });
}

Status WithPrefix(const Status& status, const std::string& prefix) {
  return Status(status.code(), prefix + ": " + status.message());
}

}  // namespace

ExportGraphBuilder::ExportGraphBuilder(std::shared_ptr<torch::jit::Graph> graph, std::string file, c10::Device device,
                                       const json& serialized_graph)
    : graph_(std::move(graph)), file_(std::move(file)), device_(device) {
  // Symbols whose value the exporter fixed (static shapes): {"s0": {"as_int": 4}}.
  for (const char* table : {"sym_int_values", "sym_float_values", "sym_bool_values"}) {
    if (!serialized_graph.contains(table)) continue;
    for (const auto& [name, value] : serialized_graph.at(table).items()) {
      if (value.contains("as_int")) static_symbols_[name] = value.at("as_int").get<int64_t>();
      if (value.contains("as_float")) static_symbols_[name] = JsonFloat(value.at("as_float"));
      if (value.contains("as_bool")) static_symbols_[name] = value.at("as_bool").get<bool>();
    }
  }
}

Status ExportGraphBuilder::Bind(const std::string& name, Value* value) {
  if (!values_.emplace(name, value).second) return DataLoss(file_ + ": the program defines '" + name + "' twice");
  // The JIT refuses all-digit debug names; export names are Python identifiers, so this is defensive.
  if (name.find_first_not_of("0123456789") != std::string::npos) value->setDebugName(name);
  return OkStatus();
}

Status ExportGraphBuilder::BindUserInput(const std::string& name, Value* input) {
  origins_[input] = Origin{true, "user input '" + name + "'"};
  return Bind(name, input);
}

Status ExportGraphBuilder::BindTensorConstant(const std::string& name, const at::Tensor& tensor,
                                              const std::string& what) {
  Value* constant = graph_->insertConstant(tensor);
  origins_[constant] = Origin{false, what};
  return Bind(name, constant);
}

Status ExportGraphBuilder::BindConstant(const std::string& name, const c10::IValue& value) {
  return Bind(name, graph_->insertConstant(value));
}

StatusOr<std::optional<std::vector<PendingArgument>>> ExportGraphBuilder::ConvertAll(
    const json& inputs, const c10::FunctionSchema& schema, ArgumentFit fit, bool names_must_match) {
  const std::vector<c10::Argument>& formals = schema.arguments();
  std::vector<const json*> given(formals.size(), nullptr);
  for (size_t position = 0; position < inputs.size(); ++position) {
    const json& input = inputs.at(position);
    const std::string name = input.value("name", "");
    size_t index = position;  // unnamed arguments are positional
    if (!name.empty()) {
      const auto found = std::find_if(formals.begin(), formals.end(),
                                      [&](const c10::Argument& formal) { return formal.name() == name; });
      if (found == formals.end()) {
        if (!names_must_match) return std::optional<std::vector<PendingArgument>>();
        return InvalidArgument("argument '" + name + "' is not in the schema " + c10::toString(schema));
      }
      index = static_cast<size_t>(found - formals.begin());
    }
    if (index >= formals.size()) return InvalidArgument("too many arguments for " + c10::toString(schema));
    given[index] = &input.at("arg");
  }
  std::vector<PendingArgument> arguments;
  for (size_t i = 0; i < formals.size(); ++i) {
    const c10::Argument& formal = formals[i];
    if (given[i] == nullptr) {
      std::optional<PendingArgument> fallback = DefaultArgument(formal);
      if (!fallback) {
        if (!names_must_match) return std::optional<std::vector<PendingArgument>>();
        return InvalidArgument("argument '" + formal.name() + "' is missing and has no default");
      }
      arguments.push_back(std::move(*fallback));
      continue;
    }
    StatusOr<std::optional<PendingArgument>> converted = ConvertArgument(*given[i], formal, fit, Scope());
    if (!converted.ok()) return WithPrefix(converted.status(), "argument '" + formal.name() + "'");
    if (!converted->has_value()) return std::optional<std::vector<PendingArgument>>();
    arguments.push_back(std::move(**converted));
  }
  return std::optional(std::move(arguments));
}

StatusOr<ExportGraphBuilder::ChosenOverload> ExportGraphBuilder::ChooseOverload(const json& inputs,
                                                                                const std::string& qualified_name,
                                                                                const std::string& overload) {
  const auto& operators = torch::jit::getAllOperatorsFor(c10::Symbol::fromQualString(qualified_name));
  const auto requested = std::find_if(operators.begin(), operators.end(), [&](const auto& op) {
    return op->schema().overload_name() == overload;
  });
  if (requested == operators.end()) {
    const std::string shown = qualified_name + (overload.empty() ? "" : "." + overload);
    return NotFound("operator " + shown + " is not in libtorch's operator registry" +
                    (operators.empty() ? "" : " (the operator exists, this overload does not)"));
  }
  const c10::FunctionSchema& schema = (*requested)->schema();
  NIMBLE_ASSIGN_OR_RETURN(auto exact, ConvertAll(inputs, schema, ArgumentFit::kExact, true));
  if (exact) return ChosenOverload{*requested, std::move(*exact)};
  // A number where the schema wants a Tensor: the overload with the same arguments that takes a
  // Scalar there, as scripted graphs have it (aten::add.Tensor(x, 1) is aten::add.Scalar).
  for (const auto& other : operators) {
    const c10::FunctionSchema& candidate = other->schema();
    if (other == *requested || candidate.arguments().size() != schema.arguments().size()) continue;
    NIMBLE_ASSIGN_OR_RETURN(auto fits, ConvertAll(inputs, candidate, ArgumentFit::kExact, false));
    if (fits) return ChosenOverload{other, std::move(*fits)};
  }
  NIMBLE_ASSIGN_OR_RETURN(auto lenient, ConvertAll(inputs, schema, ArgumentFit::kLenient, true));
  if (!lenient) return Internal("no conversion of the arguments fits " + c10::toString(schema));
  return ChosenOverload{*requested, std::move(*lenient)};
}

Status ExportGraphBuilder::CheckWrites(const c10::FunctionSchema& schema, const std::vector<Value*>& inputs) const {
  for (size_t i = 0; i < schema.arguments().size(); ++i) {
    if (!Writes(schema.arguments()[i].alias_info())) continue;
    const auto origin = origins_.find(inputs[i]);
    if (origin == origins_.end()) continue;
    if (origin->second.is_user_input) {
      return Unimplemented("writes to " + origin->second.what + " in place; input mutations are not supported");
    }
    return Unimplemented("writes to " + origin->second.what +
                         " in place; buffer and parameter mutations are not supported (weights are "
                         "constants of the loaded graph)");
  }
  return OkStatus();
}

void ExportGraphBuilder::PropagateOrigins(const c10::FunctionSchema& schema, const std::vector<Value*>& inputs,
                                          const Node& node) {
  for (size_t r = 0; r < schema.returns().size(); ++r) {
    for (size_t i = 0; i < schema.arguments().size(); ++i) {
      const auto origin = origins_.find(inputs[i]);
      if (origin == origins_.end() || !SharesAliasSet(schema.returns()[r], schema.arguments()[i])) continue;
      origins_[node.output(r)] = origin->second;  // a view of a weight or an input
      break;
    }
  }
}

Status ExportGraphBuilder::BindOutputs(const json& outputs, const c10::FunctionSchema& schema, Node& node) {
  if (outputs.size() > schema.returns().size()) {
    return DataLoss("has " + std::to_string(outputs.size()) + " outputs, the schema returns " +
                    std::to_string(schema.returns().size()));
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string kind = UnionKind(outputs.at(i));
    const json& body = outputs.at(i).at(kind);
    Value* result = node.output(i);
    if (kind == "as_tensor") {
      NIMBLE_RETURN_IF_ERROR(Bind(body.at("name").get<std::string>(), result));
    } else if (kind == "as_tensors") {
      if (result->type()->kind() != c10::TypeKind::ListType) {
        return DataLoss("output " + std::to_string(i) + " is serialized as a list, the schema returns " +
                        result->type()->repr_str());
      }
      Node* unpack = graph_->insertNode(graph_->createListUnpack(result, body.size()));
      const auto origin = origins_.find(result);
      for (size_t k = 0; k < body.size(); ++k) {
        if (origin != origins_.end()) origins_[unpack->output(k)] = origin->second;
        NIMBLE_RETURN_IF_ERROR(Bind(body.at(k).at("name").get<std::string>(), unpack->output(k)));
      }
    } else if (kind == "as_sym_int" || kind == "as_sym_float" || kind == "as_sym_bool") {
      if (UnionKind(body) == "as_name") NIMBLE_RETURN_IF_ERROR(Bind(body.at("as_name").get<std::string>(), result));
    } else if (kind != "as_none") {
      return Unimplemented("an output of kind '" + kind + "' is not supported");
    }
  }
  return OkStatus();
}

Status ExportGraphBuilder::AddNode(const json& node) {
  const std::string target = node.at("target").get<std::string>();
  const std::string prefix = file_ + ": " + Label(node, target);
  StatusOr<Target> parsed = ParseTarget(target);
  if (!parsed.ok()) return WithPrefix(parsed.status(), prefix);
  const std::string qualified_name = parsed->ns + "::" + parsed->name;
  StatusOr<ChosenOverload> chosen = ChooseOverload(node.at("inputs"), qualified_name, parsed->overload);
  if (!chosen.ok()) return WithPrefix(chosen.status(), prefix);
  const c10::FunctionSchema& schema = chosen->op->schema();

  std::vector<Value*> inputs;
  for (const PendingArgument& argument : chosen->arguments) inputs.push_back(Materialize(*graph_, argument));
  Status writes = CheckWrites(schema, inputs);
  if (!writes.ok()) return WithPrefix(writes, prefix);
  Node* call = graph_->create(c10::Symbol::fromQualString(qualified_name), inputs, schema.returns().size());
  for (size_t i = 0; i < schema.returns().size(); ++i) call->output(i)->setType(schema.returns()[i].type());
  graph_->insertNode(call);
  // The interpreter picks the first overload whose types accept the inputs; it must be this one.
  const c10::FunctionSchema* resolved = call->maybeSchema();
  if (resolved == nullptr || resolved->overload_name() != schema.overload_name()) {
    return Internal(prefix + ": the graph would dispatch " +
                    (resolved ? c10::toString(*resolved) : std::string("no operator")) + " instead of " +
                    c10::toString(schema));
  }
  PropagateOrigins(schema, inputs, *call);
  Status bound = BindOutputs(node.at("outputs"), schema, *call);
  return bound.ok() ? bound : WithPrefix(bound, prefix);
}

StatusOr<Value*> ExportGraphBuilder::OutputValue(const json& argument) {
  StatusOr<PendingArgument> output = ConvertOutputArgument(argument, Scope());
  if (!output.ok()) return WithPrefix(output.status(), file_ + ": graph output");
  return Materialize(*graph_, *output);
}

}  // namespace nimble::accelerate
