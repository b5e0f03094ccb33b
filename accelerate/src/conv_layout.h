// Convolutions in channels_last (NHWC): the frozen graph's 2-D convolution weights stored channels_last
// and each 4-D floating input converted on entry, so that cuDNN runs its NHWC kernels without the
// layout transposes it puts around each NCHW convolution in half precision. The values computed are
// the same; only the memory layout of weights and activations changes (outputs of rank 4 come out
// channels_last). Private to accelerate/src.
#pragma once

#include <torch/csrc/jit/ir/ir.h>

#include <memory>
#include <string>
#include <vector>

#include "nimble/accelerate/model_graph.h"
#include "nimble/core/status.h"
#include "nimble/core/tensor_spec.h"

namespace nimble::accelerate {

// What the graph's convolutions are, for the automatic choice.
struct ConvSummary {
  int32_t convolutions = 0;   // 2-D convolutions with a constant 4-D weight
  int32_t half = 0;           // of them, float16 or bfloat16 weights
  int32_t depthwise = 0;      // of them, one input channel per group (groups > 1)
};

ConvSummary SummarizeConvolutions(const torch::jit::Graph& graph);

// MemoryFormat::kAuto's rule: channels_last when there are half-precision convolutions and none is
// depthwise. Measured on the H100 at batch 1 in float16 (bench/results/zoo.md): PyTorch's CUDA graph of
// the frozen graph 1.69x (ResNet-50) and 1.60x (Inception-v3) faster in channels_last, MobileNetV2 and
// EfficientNet-B0 (depthwise) 12 % and 11 % slower; nimble-accelerate's replays 1.37x and 1.44x faster.
bool ChannelsLastPays(const ConvSummary& summary);

// Half-precision convolutions, some depthwise: the layout that wins depends on the model, so kAuto
// leaves it contiguous and the caller may measure both (nimble-accelerate --memory-format measure).
// On the H200 at batch 1 (bench/results/zoo.md, "Layouts of depthwise models"), nimble-accelerate's
// NASNet-A large replays ran 1.4-1.6x faster in channels_last, MobileNetV2's 3-7 % faster and
// EfficientNet-B0's bfloat16 one 10 % slower.
bool LayoutUndecided(const ConvSummary& summary);

// Stores the convolution weights channels_last (a weight another op also reads gets a copy of its own)
// and converts the 4-D floating inputs that flow into a convolution (`inputs`: one spec per forward
// argument). Returns whether the graph has convolutions with constant weights, now all channels_last.
// Internal naming `path` on a libtorch failure.
StatusOr<bool> ConvertToChannelsLast(std::shared_ptr<torch::jit::Graph>& graph,
                                     const std::vector<TensorSpec>& inputs, const std::string& path);

}  // namespace nimble::accelerate
