// A convolution's element-wise tail in one kernel. After cuDNN's convolution ATen adds the bias in a
// kernel of its own, and a frozen CNN then runs its residual add and activation as more kernels, each
// reading and writing the whole activation: at batch 1 these small kernels and the gaps between them
// are a tenth of ResNet-50's replay. The pass moves the bias out of the convolution and replaces
// conv -> [add] -> [relu | relu6 | silu] by conv -> nimble::conv_epilogue_, which does the same
// arithmetic, rounding where ATen's kernels round. Private to accelerate/src.
#pragma once

#include <ATen/core/Tensor.h>
#include <torch/csrc/jit/ir/ir.h>

#include <memory>
#include <optional>

#include "loaded_model_impl.h"
#include "shape_run.h"

namespace nimble::accelerate {

// The activations the epilogue applies; their numbers are the operator's `activation` argument, which
// model.nimble files store: never renumber them.
enum class EpilogueActivation : int64_t { kNone = 0, kRelu = 1, kRelu6 = 2, kSilu = 3 };

// nimble::conv_epilogue_(Tensor(a!) self, Tensor? bias, Tensor? other, int activation) -> Tensor(a!):
// self = activation(self + bias[channel] + other), in place. One CUDA kernel where self is a dense
// float32/float16/bfloat16 CUDA tensor, bias a contiguous [C] vector and other laid out as self;
// ATen's add_, add_ and activation otherwise (the CPU, other layouts), so the results agree.
at::Tensor ConvEpilogueOp(at::Tensor self, const std::optional<at::Tensor>& bias,
                          const std::optional<at::Tensor>& other, int64_t activation);

// Rewrites every convolution whose output is read only by its tail: the bias leaves the convolution
// (kept there for grouped convolutions, whose ATen kernel adds it itself), and the tail becomes one
// nimble::conv_epilogue_. A residual add is taken only where the shape run saw both operands with the
// same shape and dtype. `run` is the shape run of model.graph; afterwards the graph needs a new one.
// Returns how many epilogues were made. May throw libtorch exceptions.
int32_t FuseConvEpilogues(LoadedModel::Impl& model, const ShapeRun& run);

}  // namespace nimble::accelerate
