// Whether a TorchScript type can hold a tensor: Tensor itself, or a list, tuple, optional or dict
// with one inside. Shared by the op classification (an op returns or writes one), the stream
// rewrite's keep list and the capture check. Pure function; thread-safe.
#pragma once

#include <ATen/core/jit_type.h>
#include <c10/core/ScalarType.h>

#include <optional>

#include "nimble/core/tensor_spec.h"

namespace nimble::accelerate {

inline bool ContainsTensor(const c10::TypePtr& type) {
  if (type->kind() == c10::TypeKind::TensorType) return true;
  for (const c10::TypePtr& contained : type->containedTypes()) {
    if (ContainsTensor(contained)) return true;
  }
  return false;
}

inline c10::ScalarType ToScalarType(DType dtype) {
  switch (dtype) {
    case DType::kFloat32: return c10::ScalarType::Float;
    case DType::kFloat16: return c10::ScalarType::Half;
    case DType::kBFloat16: return c10::ScalarType::BFloat16;
    case DType::kInt64: return c10::ScalarType::Long;
    case DType::kInt32: return c10::ScalarType::Int;
    case DType::kBool: return c10::ScalarType::Bool;
  }
  return c10::ScalarType::Float;
}

inline std::optional<DType> FromScalarType(c10::ScalarType type) {
  switch (type) {
    case c10::ScalarType::Float: return DType::kFloat32;
    case c10::ScalarType::Half: return DType::kFloat16;
    case c10::ScalarType::BFloat16: return DType::kBFloat16;
    case c10::ScalarType::Long: return DType::kInt64;
    case c10::ScalarType::Int: return DType::kInt32;
    case c10::ScalarType::Bool: return DType::kBool;
    default: return std::nullopt;
  }
}

}  // namespace nimble::accelerate
