// A tensor handed to a captured graph against the buffer it is copied into: the words for its dtype and
// shape, and the InvalidArgument naming what differs. Shared by TensorRunner and TrainingStep. Private
// to accelerate/src; pure functions.
#pragma once

#include <ATen/ATen.h>

#include <string>

#include "nimble/core/status.h"

namespace nimble::accelerate {

// The names --input uses for the dtypes Nimble captures; others as c10 writes them ("Double", ...).
std::string DtypeName(c10::ScalarType type);

// "1x3x224x224", or "a scalar".
std::string SizesText(c10::IntArrayRef sizes);

// InvalidArgument naming `which` (e.g. "model.nimble: input 0") and what differs from `buffer`: defined,
// device, dtype, shape, in that order.
Status CheckAgainstBuffer(const std::string& which, const at::Tensor& given, const at::Tensor& buffer);

}  // namespace nimble::accelerate
