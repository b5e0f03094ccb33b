// Argument kinds of schema 8.x (the Argument union in torch/_export/serde/schema.py) against the JIT
// view of a formal: ScalarType, Layout and MemoryFormat are ints there, SymInt is int, Scalar is
// Number. Floats arrive as JSON numbers or as the strings "Infinity", "-Infinity" and "NaN".
#include "export_arguments.h"

#include <ATen/ATen.h>

#include <cmath>
#include <limits>

#include "export_schema.h"

namespace nimble::accelerate {
namespace {

using nlohmann::json;
using torch::jit::Value;
using Converted = StatusOr<std::optional<PendingArgument>>;

// "as_int" -> "int".
std::string KindName(const std::string& kind) { return kind.starts_with("as_") ? kind.substr(3) : kind; }

PendingArgument Constant(c10::IValue constant) {
  PendingArgument argument;
  argument.type = constant.type();
  argument.constant = std::move(constant);
  return argument;
}

PendingArgument FromValue(Value* value) {
  PendingArgument argument;
  argument.type = value->type();
  argument.value = value;
  return argument;
}

PendingArgument List(c10::TypePtr element_type, std::vector<Value*> elements) {
  PendingArgument argument;
  argument.type = c10::ListType::create(element_type);
  argument.is_list = true;
  argument.element_type = std::move(element_type);
  argument.elements = std::move(elements);
  return argument;
}

c10::TypePtr Unwrapped(const c10::TypePtr& type) {
  if (auto optional = type->cast<c10::OptionalType>()) return optional->getElementType();
  return type;
}

StatusOr<Value*> TensorValue(const json& tensor_argument, const ArgumentScope& scope) {
  const std::string name = tensor_argument.at("name").get<std::string>();
  const auto found = scope.values.find(name);
  if (found == scope.values.end()) return DataLoss("refers to '" + name + "', which no input or earlier node defines");
  return found->second;
}

// A SymInt, SymFloat or SymBool argument: a literal, or a symbol that must be static.
StatusOr<PendingArgument> Symbolic(const json& symbolic, const ArgumentScope& scope) {
  const std::string kind = UnionKind(symbolic);
  const json& body = symbolic.at(kind);
  if (kind == "as_int") return Constant(body.get<int64_t>());
  if (kind == "as_float") return Constant(JsonFloat(body));
  if (kind == "as_bool") return Constant(body.get<bool>());
  if (kind != "as_name") return DataLoss("malformed symbolic value (kind '" + kind + "')");
  const std::string name = body.get<std::string>();
  if (const auto known = scope.static_symbols.find(name); known != scope.static_symbols.end()) {
    return Constant(known->second);
  }
  if (const auto bound = scope.values.find(name); bound != scope.values.end()) return FromValue(bound->second);
  return Unimplemented("uses the dynamic dimension '" + name +
                       "'; only programs exported with static shapes are supported");
}

// A number for `formal`: kept, widened (int for float), or, at kLenient only, reshaped.
std::optional<PendingArgument> Number(const c10::IValue& number, const c10::TypePtr& formal, ArgumentFit fit) {
  const bool lenient = fit == ArgumentFit::kLenient;
  switch (Unwrapped(formal)->kind()) {
    case c10::TypeKind::TensorType: {
      if (!lenient) return std::nullopt;
      // Python floats become the default dtype (as wrapped numbers do), ints int64.
      if (number.isDouble()) return Constant(at::scalar_tensor(number.toDouble(), at::kFloat));
      if (number.isBool()) return Constant(at::scalar_tensor(number.toBool(), at::kBool));
      return Constant(at::scalar_tensor(number.toInt(), at::kLong));
    }
    case c10::TypeKind::FloatType:
      if (number.isInt()) return Constant(static_cast<double>(number.toInt()));
      if (number.isBool()) return std::nullopt;
      return Constant(number);
    case c10::TypeKind::IntType:
      if (number.isDouble()) return std::nullopt;
      if (number.isBool()) return lenient ? std::optional(Constant(int64_t{number.toBool()})) : std::nullopt;
      return Constant(number);
    case c10::TypeKind::NumberType:
      if (number.isBool()) return lenient ? std::optional(Constant(int64_t{number.toBool()})) : std::nullopt;
      return Constant(number);
    case c10::TypeKind::BoolType:
      if (number.isInt() && lenient) return Constant(number.toInt() != 0);
      return Constant(number);
    default:
      return Constant(number);
  }
}

template <typename T>
c10::List<T> JsonList(const json& values) {
  c10::List<T> list;
  for (const json& value : values) list.push_back(value.get<T>());
  return list;
}

StatusOr<PendingArgument> SymbolicList(const json& symbols, const c10::TypePtr& formal, const ArgumentScope& scope) {
  const c10::TypePtr element = [&]() -> c10::TypePtr {
    if (auto list = Unwrapped(formal)->cast<c10::ListType>()) return list->getElementType();
    return c10::IntType::get();
  }();
  auto list = c10::impl::GenericList(element);
  for (const json& symbol : symbols) {
    NIMBLE_ASSIGN_OR_RETURN(PendingArgument item, Symbolic(symbol, scope));
    if (!item.constant) return Unimplemented("a list with dynamic dimensions is not supported");
    c10::IValue value = *item.constant;
    if (element->kind() == c10::TypeKind::FloatType && value.isInt()) value = static_cast<double>(value.toInt());
    list.push_back(std::move(value));
  }
  return Constant(std::move(list));
}

StatusOr<PendingArgument> TensorList(const json& tensors, const c10::TypePtr& formal, const ArgumentScope& scope) {
  c10::TypePtr element = c10::TensorType::get();
  if (auto list = Unwrapped(formal)->cast<c10::ListType>()) {
    if (list->getElementType()->cast<c10::OptionalType>()) element = c10::OptionalType::ofTensor();
  }
  std::vector<Value*> elements;
  for (const json& tensor : tensors) {
    NIMBLE_ASSIGN_OR_RETURN(Value * value, TensorValue(tensor, scope));
    elements.push_back(value);
  }
  return List(element, std::move(elements));
}

StatusOr<PendingArgument> OptionalTensors(const json& tensors, const ArgumentScope& scope) {
  std::vector<Value*> elements;
  for (const json& tensor : tensors) {
    if (UnionKind(tensor) == "as_none") {
      elements.push_back(nullptr);
      continue;
    }
    NIMBLE_ASSIGN_OR_RETURN(Value * value, TensorValue(tensor.at("as_tensor"), scope));
    elements.push_back(value);
  }
  return List(c10::OptionalType::ofTensor(), std::move(elements));
}

StatusOr<PendingArgument> Enumerated(const std::string& kind, int64_t serialized) {
  std::optional<int64_t> value;
  if (kind == "as_scalar_type") {
    if (auto dtype = ExportScalarType(serialized)) value = static_cast<int64_t>(*dtype);
  } else if (kind == "as_layout") {
    if (auto layout = ExportLayout(serialized)) value = static_cast<int64_t>(*layout);
  } else if (auto format = ExportMemoryFormat(serialized)) {
    value = static_cast<int64_t>(*format);
  }
  if (!value) return DataLoss("unknown " + KindName(kind) + " number " + std::to_string(serialized));
  return Constant(*value);
}

// Program devices name where the exporter ran; the loaded module runs on the load device.
c10::Device DeviceArgument(const json& device, const ArgumentScope& scope) {
  const std::string type = device.at("type").get<std::string>();
  if (type == "cpu" || type == "cuda") return scope.device;
  const json& index = device.value("index", json());
  return c10::Device(index.is_null() ? type : type + ":" + std::to_string(index.get<int64_t>()));
}

// The argument as the serialized kind says, before fitting it to the formal.
StatusOr<PendingArgument> Literal(const std::string& kind, const json& body, const c10::TypePtr& formal,
                                  const ArgumentScope& scope) {
  if (kind == "as_none") return Constant(c10::IValue());
  if (kind == "as_tensor") {
    NIMBLE_ASSIGN_OR_RETURN(Value * value, TensorValue(body, scope));
    return FromValue(value);
  }
  if (kind == "as_tensors") return TensorList(body, formal, scope);
  if (kind == "as_optional_tensors") return OptionalTensors(body, scope);
  if (kind == "as_optional_tensor") {
    if (UnionKind(body) == "as_none") return Constant(c10::IValue());
    NIMBLE_ASSIGN_OR_RETURN(Value * value, TensorValue(body.at("as_tensor"), scope));
    return FromValue(value);
  }
  if (kind == "as_ints" || kind == "as_floats") {
    const c10::TypePtr element = Unwrapped(formal)->cast<c10::ListType>()
                                     ? Unwrapped(formal)->expectRef<c10::ListType>().getElementType()
                                     : c10::IntType::get();
    if (kind == "as_floats" || element->kind() == c10::TypeKind::FloatType) {
      c10::List<double> list;
      for (const json& value : body) list.push_back(JsonFloat(value));
      return Constant(std::move(list));
    }
    return Constant(JsonList<int64_t>(body));
  }
  if (kind == "as_bools") return Constant(JsonList<bool>(body));
  if (kind == "as_strings") return Constant(JsonList<std::string>(body));
  if (kind == "as_string") return Constant(body.get<std::string>());
  if (kind == "as_sym_ints" || kind == "as_sym_floats" || kind == "as_sym_bools") {
    return SymbolicList(body, formal, scope);
  }
  if (kind == "as_scalar_type" || kind == "as_layout" || kind == "as_memory_format") {
    return Enumerated(kind, body.get<int64_t>());
  }
  if (kind == "as_device") return Constant(DeviceArgument(body, scope));
  if (kind == "as_complex") {
    return Constant(c10::complex<double>(JsonFloat(body.at("real")), JsonFloat(body.at("imag"))));
  }
  if (kind.empty()) return DataLoss("malformed argument (not a one-key object)");
  return Unimplemented("argument kind '" + kind + "' is not supported");
}

bool IsNumberKind(const std::string& kind) { return kind == "as_int" || kind == "as_float" || kind == "as_bool"; }

c10::IValue NumberValue(const std::string& kind, const json& body) {
  if (kind == "as_int") return body.get<int64_t>();
  if (kind == "as_float") return JsonFloat(body);
  return body.get<bool>();
}

}  // namespace

std::string UnionKind(const json& j) {
  if (!j.is_object() || j.size() != 1) return "";
  return j.begin().key();
}

double JsonFloat(const json& j) {
  if (j.is_string()) {
    const std::string text = j.get<std::string>();
    if (text == "Infinity") return std::numeric_limits<double>::infinity();
    if (text == "-Infinity") return -std::numeric_limits<double>::infinity();
    if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
    throw json::type_error::create(302, "float expected, got the string '" + text + "'", &j);
  }
  return j.get<double>();
}

Converted ConvertArgument(const json& argument, const c10::Argument& formal, ArgumentFit fit,
                          const ArgumentScope& scope) {
  const std::string kind = UnionKind(argument);
  const json& body = kind.empty() ? argument : argument.at(kind);
  std::optional<PendingArgument> converted;
  if (IsNumberKind(kind)) {
    converted = Number(NumberValue(kind, body), formal.type(), fit);
  } else if (kind == "as_sym_int" || kind == "as_sym_float" || kind == "as_sym_bool") {
    NIMBLE_ASSIGN_OR_RETURN(PendingArgument symbolic, Symbolic(body, scope));
    converted = symbolic.constant ? Number(*symbolic.constant, formal.type(), fit) : std::optional(symbolic);
  } else {
    NIMBLE_ASSIGN_OR_RETURN(converted, Literal(kind, body, formal.type(), scope));
  }
  if (converted && converted->type->isSubtypeOf(*formal.type())) return converted;
  if (fit == ArgumentFit::kExact) return std::optional<PendingArgument>();
  return InvalidArgument("got " + KindName(kind) + " where the schema wants " + formal.type()->repr_str());
}

std::optional<PendingArgument> DefaultArgument(const c10::Argument& formal) {
  if (!formal.default_value()) return std::nullopt;
  return Constant(*formal.default_value());
}

StatusOr<PendingArgument> ConvertOutputArgument(const json& argument, const ArgumentScope& scope) {
  const std::string kind = UnionKind(argument);
  if (kind.empty()) return DataLoss("malformed output (not a one-key object)");
  const json& body = argument.at(kind);
  if (IsNumberKind(kind)) return Constant(NumberValue(kind, body));
  if (kind == "as_sym_int" || kind == "as_sym_float" || kind == "as_sym_bool") return Symbolic(body, scope);
  if (kind == "as_tensor") {
    NIMBLE_ASSIGN_OR_RETURN(Value * value, TensorValue(body, scope));
    return FromValue(value);
  }
  if (kind == "as_none" || kind == "as_string" || kind == "as_tensors") {
    return Literal(kind, body, c10::ListType::ofTensors(), scope);
  }
  return Unimplemented("an output of kind '" + kind + "' is not supported");
}

torch::jit::Value* Materialize(torch::jit::Graph& graph, const PendingArgument& argument) {
  if (argument.constant) return graph.insertConstant(*argument.constant);
  if (!argument.is_list) return argument.value;
  std::vector<Value*> elements;
  for (Value* element : argument.elements) elements.push_back(element ? element : graph.insertConstant(c10::IValue()));
  return graph.insertNode(graph.createList(argument.element_type, elements))->output();
}

}  // namespace nimble::accelerate
