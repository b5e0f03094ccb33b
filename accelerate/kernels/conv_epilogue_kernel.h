// The element-wise tail of a convolution in one kernel: the bias add that ATen launches after cuDNN's
// convolution, an optional residual add and an optional activation, each rounded to the tensor's
// dtype where ATen's separate kernels round, so the result equals theirs. Plain CUDA (no libtorch), so
// that nvcc compiles it alone; accelerate/src/conv_epilogue.cpp checks the tensors and calls it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace nimble::accelerate::kernels {

enum class EpilogueDtype : int32_t { kFloat32, kFloat16, kBFloat16 };
enum class EpilogueActivation : int32_t { kNone, kRelu, kRelu6, kSilu };

struct ConvEpilogueArgs {
  void* x = nullptr;              // the convolution's output, written in place
  const void* bias = nullptr;     // [channels] or nullptr
  const void* other = nullptr;    // the residual, laid out as x, or nullptr
  int64_t numel = 0;
  int64_t channels = 1;
  // Elements between two channels in memory (x's stride of dim 1): H*W for NCHW, 1 for channels_last.
  // An element at memory offset o has channel (o / channel_stride) % channels.
  int64_t channel_stride = 1;
  EpilogueDtype dtype = EpilogueDtype::kFloat32;
  EpilogueActivation activation = EpilogueActivation::kNone;
};

// Queues the kernel on `stream`; returns the launch's error (cudaSuccess when numel is 0).
cudaError_t LaunchConvEpilogue(const ConvEpilogueArgs& args, cudaStream_t stream);

}  // namespace nimble::accelerate::kernels
