// Model inputs as users type them, one per forward argument: "1x3x224x224" (float32), "1x128:int64",
// "1x128:int64:0..30521" (token ids drawn from that inclusive range), "1x3x224x224:float16",
// "2x8:bfloat16", "1x128:bool". The one parser behind every tool's --input. Pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nimble/core/status.h"
#include "nimble/core/tensor_spec.h"

namespace nimble::workflow {

using Shape = std::vector<int64_t>;

// "1x3x224x224" -> {1, 3, 224, 224}; every dimension a positive integer. InvalidArgument naming the
// text otherwise.
StatusOr<Shape> ParseShape(const std::string& text);

// SHAPE[:DTYPE[:LOW..HIGH]]: an unknown dtype, a range on a floating or bool input, or LOW > HIGH is
// InvalidArgument naming the text and what is accepted.
StatusOr<TensorSpec> ParseInputSpec(const std::string& text);
StatusOr<std::vector<TensorSpec>> ParseInputSpecs(const std::vector<std::string>& texts);

// One bucket of several input shapes, the inputs separated by commas: "2x128:int64,2x128:int64".
StatusOr<std::vector<TensorSpec>> ParseBucketSpec(const std::string& text);

// InvalidArgument for a size below 1 or a size given twice.
Status CheckBatchSizes(const std::vector<int64_t>& batch_sizes);

// `inputs` once per batch size, dimension 0 of every input set to it. InvalidArgument as
// CheckBatchSizes, or for an input without dimensions.
StatusOr<std::vector<std::vector<TensorSpec>>> BatchBuckets(const std::vector<TensorSpec>& inputs,
                                                            const std::vector<int64_t>& batch_sizes);

// Buckets given whole: InvalidArgument when two have different input counts or the same shapes.
Status CheckBuckets(const std::vector<std::vector<TensorSpec>>& buckets);

// {1, 3, 224, 224} -> "1x3x224x224".
std::string ShapeText(const Shape& shape);

}  // namespace nimble::workflow
