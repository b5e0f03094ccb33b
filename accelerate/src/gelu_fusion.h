// GELU's tanh approximation written out element by element, as GPT-2's and other transformers' "gelu_new"
// activation is (0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))): eight kernels, each reading
// and writing the whole activation), replaced by the one aten::gelu(x, approximate="tanh") kernel that
// computes the same formula (in float32 for half-precision inputs, rounding once instead of eight
// times). Only a pattern whose intermediate values have no other reader is replaced. Private to
// accelerate/src.
#pragma once

#include <torch/csrc/jit/ir/ir.h>

#include <memory>

namespace nimble::accelerate {

// Returns how many written-out GELUs became aten::gelu. May throw libtorch exceptions.
int32_t FuseTanhGelu(std::shared_ptr<torch::jit::Graph>& graph);

}  // namespace nimble::accelerate
