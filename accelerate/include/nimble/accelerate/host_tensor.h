// A tensor in host memory, the currency of the torch-free accelerate API: inputs copied into a captured
// graph's buffers, outputs copied back. Dense, row-major. The values are held as float whatever the
// device tensor's dtype (float16 and bfloat16 widen exactly; integers and bools are exact up to 2^24),
// and `dtype` says what they become on the device. Plain data.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "nimble/core/tensor_spec.h"

namespace nimble::accelerate {

struct HostTensor {
  std::vector<int64_t> shape;
  std::vector<float> data;  // product(shape) elements
  DType dtype = DType::kFloat32;

  static int64_t NumElements(const std::vector<int64_t>& shape) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
  }
  // Normal(0, 1) values, reproducible from `seed`.
  static HostTensor Random(const std::vector<int64_t>& shape, uint64_t seed) {
    HostTensor t{shape, std::vector<float>(static_cast<size_t>(NumElements(shape)))};
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> normal(0.0F, 1.0F);
    for (float& v : t.data) v = normal(rng);
    return t;
  }
  // Values for `spec`, reproducible from `seed`: Normal(0, 1) for floating dtypes (rounded on the
  // device), integers uniform in [spec.low, spec.high], bools 0 or 1.
  static HostTensor Random(const TensorSpec& spec, uint64_t seed) {
    if (IsFloating(spec.dtype)) {
      HostTensor t = Random(spec.shape, seed);
      t.dtype = spec.dtype;
      return t;
    }
    HostTensor t{spec.shape, std::vector<float>(static_cast<size_t>(NumElements(spec.shape))), spec.dtype};
    std::mt19937_64 rng(seed);
    const int64_t low = spec.dtype == DType::kBool ? 0 : spec.low;
    const int64_t high = spec.dtype == DType::kBool ? 1 : spec.high;
    std::uniform_int_distribution<int64_t> uniform(low, high);
    for (float& v : t.data) v = static_cast<float>(uniform(rng));
    return t;
  }
};

// "1x3x224x224".
inline std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string text;
  for (int64_t d : shape) text += (text.empty() ? "" : "x") + std::to_string(d);
  return text;
}

}  // namespace nimble::accelerate
