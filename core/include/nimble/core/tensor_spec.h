// What one model input is: its shape, its element type and, for integer inputs such as token ids, the
// range random values are drawn from. Written "1x3x224x224", "1x128:int64", "1x128:int64:0..30521",
// "2x3:bfloat16". Plain data and pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nimble {

enum class DType : uint8_t { kFloat32, kFloat16, kBFloat16, kInt64, kInt32, kBool };

// "float32", "float16", "bfloat16", "int64", "int32", "bool".
std::string_view DTypeName(DType dtype);
// The names above, and "fp32", "fp16", "half", "bf16", "long", "int", "float".
std::optional<DType> ParseDType(std::string_view name);
bool IsFloating(DType dtype);
bool IsHalfPrecision(DType dtype);  // float16 or bfloat16
size_t DTypeBytes(DType dtype);

struct TensorSpec {
  std::vector<int64_t> shape;
  DType dtype = DType::kFloat32;
  // Random integer inputs are uniform in [low, high]; floating ones Normal(0, 1), bool ones 0 or 1.
  int64_t low = 0;
  int64_t high = kDefaultHigh;

  static constexpr int64_t kDefaultHigh = 63;

  bool operator==(const TensorSpec&) const = default;
};

// A float32 spec of `shape`.
TensorSpec Float32Spec(std::vector<int64_t> shape);
std::vector<TensorSpec> Float32Specs(const std::vector<std::vector<int64_t>>& shapes);
std::vector<std::vector<int64_t>> SpecShapes(const std::vector<TensorSpec>& specs);

// "1x3x224x224" for float32, "1x128:int64", "1x128:int64:0..30521" when the range is not the default.
std::string TensorSpecText(const TensorSpec& spec);
// Specs joined by ",".
std::string TensorSpecsText(const std::vector<TensorSpec>& specs);

}  // namespace nimble
