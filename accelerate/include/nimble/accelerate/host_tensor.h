// A float32 tensor in host memory, the currency of the torch-free accelerate API: inputs copied into
// a captured graph's buffers, outputs copied back. Dense, row-major. Plain data.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace nimble::accelerate {

struct HostTensor {
  std::vector<int64_t> shape;
  std::vector<float> data;  // product(shape) elements

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
};

// "1x3x224x224".
inline std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string text;
  for (int64_t d : shape) text += (text.empty() ? "" : "x") + std::to_string(d);
  return text;
}

}  // namespace nimble::accelerate
