// Whether a TorchScript type can hold a tensor: Tensor itself, or a list, tuple, optional or dict
// with one inside. Shared by the op classification (an op returns or writes one), the stream
// rewrite's keep list and the capture check. Pure function; thread-safe.
#pragma once

#include <ATen/core/jit_type.h>

namespace nimble::accelerate {

inline bool ContainsTensor(const c10::TypePtr& type) {
  if (type->kind() == c10::TypeKind::TensorType) return true;
  for (const c10::TypePtr& contained : type->containedTypes()) {
    if (ContainsTensor(contained)) return true;
  }
  return false;
}

}  // namespace nimble::accelerate
