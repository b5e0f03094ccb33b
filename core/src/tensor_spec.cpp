#include "nimble/core/tensor_spec.h"

#include <array>
#include <utility>

namespace nimble {
namespace {

struct DTypeAlias {
  std::string_view name;
  DType dtype;
};

constexpr std::array<DTypeAlias, 13> kAliases = {{
    {"float32", DType::kFloat32}, {"fp32", DType::kFloat32},   {"float", DType::kFloat32},
    {"float16", DType::kFloat16}, {"fp16", DType::kFloat16},   {"half", DType::kFloat16},
    {"bfloat16", DType::kBFloat16}, {"bf16", DType::kBFloat16}, {"int64", DType::kInt64},
    {"long", DType::kInt64},      {"int32", DType::kInt32},    {"int", DType::kInt32},
    {"bool", DType::kBool},
}};

}  // namespace

std::string_view DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kFloat32: return "float32";
    case DType::kFloat16: return "float16";
    case DType::kBFloat16: return "bfloat16";
    case DType::kInt64: return "int64";
    case DType::kInt32: return "int32";
    case DType::kBool: return "bool";
  }
  return "unknown";
}

std::optional<DType> ParseDType(std::string_view name) {
  for (const DTypeAlias& alias : kAliases) {
    if (alias.name == name) return alias.dtype;
  }
  return std::nullopt;
}

bool IsFloating(DType dtype) {
  return dtype == DType::kFloat32 || dtype == DType::kFloat16 || dtype == DType::kBFloat16;
}

bool IsHalfPrecision(DType dtype) { return dtype == DType::kFloat16 || dtype == DType::kBFloat16; }

size_t DTypeBytes(DType dtype) {
  switch (dtype) {
    case DType::kFloat32: case DType::kInt32: return 4;
    case DType::kFloat16: case DType::kBFloat16: return 2;
    case DType::kInt64: return 8;
    case DType::kBool: return 1;
  }
  return 0;
}

TensorSpec Float32Spec(std::vector<int64_t> shape) { return TensorSpec{.shape = std::move(shape)}; }

std::vector<TensorSpec> Float32Specs(const std::vector<std::vector<int64_t>>& shapes) {
  std::vector<TensorSpec> specs;
  specs.reserve(shapes.size());
  for (const auto& shape : shapes) specs.push_back(Float32Spec(shape));
  return specs;
}

std::vector<std::vector<int64_t>> SpecShapes(const std::vector<TensorSpec>& specs) {
  std::vector<std::vector<int64_t>> shapes;
  shapes.reserve(specs.size());
  for (const TensorSpec& spec : specs) shapes.push_back(spec.shape);
  return shapes;
}

std::string TensorSpecText(const TensorSpec& spec) {
  std::string text;
  for (int64_t dim : spec.shape) text += (text.empty() ? "" : "x") + std::to_string(dim);
  if (spec.shape.empty()) text = "scalar";
  if (spec.dtype != DType::kFloat32) text += ":" + std::string(DTypeName(spec.dtype));
  const bool integer = !IsFloating(spec.dtype) && spec.dtype != DType::kBool;
  if (integer && (spec.low != 0 || spec.high != TensorSpec::kDefaultHigh)) {
    text += ":" + std::to_string(spec.low) + ".." + std::to_string(spec.high);
  }
  return text;
}

std::string TensorSpecsText(const std::vector<TensorSpec>& specs) {
  std::string text;
  for (const TensorSpec& spec : specs) text += (text.empty() ? "" : ",") + TensorSpecText(spec);
  return text;
}

}  // namespace nimble
