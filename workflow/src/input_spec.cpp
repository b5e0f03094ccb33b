#include "nimble/workflow/input_spec.h"

#include <charconv>

namespace nimble::workflow {
namespace {

constexpr const char* kDTypes = "float32, float16, bfloat16, int64, int32 or bool";

bool ParseInt(std::string_view text, int64_t* value) {
  const char* first = text.data();
  const char* last = text.data() + text.size();
  const auto [ptr, error] = std::from_chars(first, last, *value);
  return first != last && error == std::errc() && ptr == last;
}

}  // namespace

StatusOr<Shape> ParseShape(const std::string& text) {
  Shape shape;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('x', start);
    if (end == std::string::npos) end = text.size();
    int64_t dim = 0;
    if (!ParseInt(std::string_view(text).substr(start, end - start), &dim) || dim <= 0) {
      return InvalidArgument("--input " + text + ": expected positive dimensions joined by 'x', e.g. 1x3x224x224");
    }
    shape.push_back(dim);
    start = end + 1;
  }
  return shape;
}

StatusOr<TensorSpec> ParseInputSpec(const std::string& text) {
  const size_t colon = text.find(':');
  TensorSpec spec;
  StatusOr<Shape> shape = ParseShape(text.substr(0, colon));
  if (!shape.ok()) {
    return InvalidArgument("--input " + text + ": expected positive dimensions joined by 'x', then optionally "
                           ":DTYPE, e.g. 1x3x224x224 or 1x128:int64");
  }
  spec.shape = std::move(*shape);
  if (colon == std::string::npos) return spec;
  const std::string rest = text.substr(colon + 1);
  const size_t second = rest.find(':');
  const std::string dtype = rest.substr(0, second);
  const std::optional<DType> parsed = ParseDType(dtype);
  if (!parsed) {
    return InvalidArgument("--input " + text + ": unknown dtype '" + dtype + "'; expected " + kDTypes);
  }
  spec.dtype = *parsed;
  if (second == std::string::npos) return spec;
  const std::string range = rest.substr(second + 1);
  if (IsFloating(spec.dtype) || spec.dtype == DType::kBool) {
    return InvalidArgument("--input " + text + ": a value range applies to int64 and int32 inputs only");
  }
  const size_t dots = range.find("..");
  if (dots == std::string::npos || !ParseInt(std::string_view(range).substr(0, dots), &spec.low) ||
      !ParseInt(std::string_view(range).substr(dots + 2), &spec.high) || spec.low > spec.high) {
    return InvalidArgument("--input " + text + ": expected a range LOW..HIGH with LOW <= HIGH, e.g. 1x128:int64:0..30521");
  }
  return spec;
}

StatusOr<std::vector<TensorSpec>> ParseInputSpecs(const std::vector<std::string>& texts) {
  std::vector<TensorSpec> specs;
  for (const std::string& text : texts) {
    NIMBLE_ASSIGN_OR_RETURN(TensorSpec spec, ParseInputSpec(text));
    specs.push_back(std::move(spec));
  }
  return specs;
}

StatusOr<std::vector<TensorSpec>> ParseBucketSpec(const std::string& text) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    parts.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  StatusOr<std::vector<TensorSpec>> specs = ParseInputSpecs(parts);
  if (!specs.ok()) return specs.status().WithContext("bucket '" + text + "'");
  return specs;
}

Status CheckBatchSizes(const std::vector<int64_t>& batch_sizes) {
  for (size_t i = 0; i < batch_sizes.size(); ++i) {
    const int64_t size = batch_sizes[i];
    if (size < 1) return InvalidArgument("--batch-sizes: " + std::to_string(size) + " is not a batch size (1 or more)");
    for (size_t j = 0; j < i; ++j) {
      if (batch_sizes[j] == size) return InvalidArgument("--batch-sizes: " + std::to_string(size) + " is given twice");
    }
  }
  return OkStatus();
}

StatusOr<std::vector<std::vector<TensorSpec>>> BatchBuckets(const std::vector<TensorSpec>& inputs,
                                                            const std::vector<int64_t>& batch_sizes) {
  NIMBLE_RETURN_IF_ERROR(CheckBatchSizes(batch_sizes));
  std::vector<std::vector<TensorSpec>> buckets;
  for (const int64_t size : batch_sizes) {
    std::vector<TensorSpec> bucket = inputs;
    for (size_t k = 0; k < bucket.size(); ++k) {
      if (bucket[k].shape.empty()) {
        return InvalidArgument("--batch-sizes: input " + std::to_string(k) + " has no dimensions to batch; give "
                               "the shapes with --bucket instead");
      }
      bucket[k].shape[0] = size;
    }
    buckets.push_back(std::move(bucket));
  }
  return buckets;
}

Status CheckBuckets(const std::vector<std::vector<TensorSpec>>& buckets) {
  for (size_t b = 1; b < buckets.size(); ++b) {
    if (buckets[b].size() != buckets[0].size()) {
      return InvalidArgument("bucket " + TensorSpecsText(buckets[b]) + " has " + std::to_string(buckets[b].size()) +
                             " input(s), bucket " + TensorSpecsText(buckets[0]) + " " + std::to_string(buckets[0].size()));
    }
    for (size_t a = 0; a < b; ++a) {
      if (SpecShapes(buckets[a]) == SpecShapes(buckets[b])) {
        return InvalidArgument("bucket " + TensorSpecsText(buckets[b]) + " is given twice");
      }
    }
  }
  return OkStatus();
}

std::string ShapeText(const Shape& shape) {
  std::string text;
  for (int64_t dim : shape) text += (text.empty() ? "" : "x") + std::to_string(dim);
  return text;
}

}  // namespace nimble::workflow
