// A tensor handed to a captured graph against the buffer it is copied into: the words for its dtype and
// shape, and the InvalidArgument naming what differs; the distance between two lists of tensors. Shared
// by TensorRunner and TrainingStep. Private to accelerate/src; pure functions.
#pragma once

#include <ATen/ATen.h>

#include <string>
#include <vector>

#include "nimble/core/status.h"

namespace nimble::accelerate {

// The names --input uses for the dtypes Nimble captures; others as c10 writes them ("Double", ...).
std::string DtypeName(c10::ScalarType type);

// "1x3x224x224", or "a scalar".
std::string SizesText(c10::IntArrayRef sizes);

// "4x10:float32 on cuda:0".
std::string TensorText(const at::Tensor& t);

// InvalidArgument naming `which` (e.g. "model.nimble: input 0") and what differs from `buffer`: defined,
// device, dtype, shape, in that order.
Status CheckAgainstBuffer(const std::string& which, const at::Tensor& given, const at::Tensor& buffer);

// ||a - b|| / ||b|| over all the tensors together (L2, in double), or ||a - b|| where b is all zeros. The
// training check's distance between parameters. Lists of different lengths, or a pair of different
// shapes, throw (c10::Error): a programmer's error.
double RelativeL2Distance(const std::vector<at::Tensor>& a, const std::vector<at::Tensor>& b);

}  // namespace nimble::accelerate
