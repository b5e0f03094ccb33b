#include "conv_epilogue_kernel.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace nimble::accelerate::kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kVector = 4;  // elements per thread: one 16-byte load of float, 8 bytes of half

__device__ __forceinline__ float ToFloat(float v) { return v; }
__device__ __forceinline__ float ToFloat(__half v) { return __half2float(v); }
__device__ __forceinline__ float ToFloat(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T>
__device__ __forceinline__ T FromFloat(float v);
template <>
__device__ __forceinline__ float FromFloat<float>(float v) { return v; }
template <>
__device__ __forceinline__ __half FromFloat<__half>(float v) { return __float2half_rn(v); }
template <>
__device__ __forceinline__ __nv_bfloat16 FromFloat<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

// ATen's relu and hardtanh are clamps that let NaN through; its silu is x / (1 + exp(-x)) in float.
template <EpilogueActivation A>
__device__ __forceinline__ float Activate(float v) {
  if constexpr (A == EpilogueActivation::kRelu) return isnan(v) ? v : fmaxf(v, 0.0f);
  if constexpr (A == EpilogueActivation::kRelu6) return isnan(v) ? v : fminf(fmaxf(v, 0.0f), 6.0f);
  if constexpr (A == EpilogueActivation::kSilu) return v / (1.0f + expf(-v));
  return v;
}

// One element of channel `channel`; `other` is the residual's element (read only when has_other). The
// bias add rounds to T (ATen's add_), the residual add rounds again, the activation works on that
// value, as the three kernels it replaces do.
template <typename T, EpilogueActivation A>
__device__ __forceinline__ T Apply(T x, const T* bias, int64_t channel, bool has_other, T other) {
  float v = ToFloat(x);
  if (bias != nullptr) v = ToFloat(FromFloat<T>(v + ToFloat(bias[channel])));
  if (has_other) v = ToFloat(FromFloat<T>(v + ToFloat(other)));
  return FromFloat<T>(Activate<A>(v));
}

// The channel of consecutive memory offsets, one division for the first and a step for the rest.
struct ChannelWalk {
  int64_t channel, within, channels, channel_stride;
  __device__ ChannelWalk(int64_t offset, int64_t channels_, int64_t channel_stride_)
      : channel((offset / channel_stride_) % channels_), within(offset % channel_stride_), channels(channels_),
        channel_stride(channel_stride_) {}
  __device__ void Next() {
    if (++within < channel_stride) return;
    within = 0;
    if (++channel == channels) channel = 0;
  }
};

template <typename T>
struct alignas(sizeof(T) * kVector) Pack {
  T v[kVector];
};

// Each thread takes kVector consecutive elements; Vectorized loads and stores them as one pack (the
// caller checks alignment and that numel is a multiple of kVector).
template <typename T, EpilogueActivation A, bool Vectorized>
__global__ void __launch_bounds__(kThreads) ConvEpilogue(T* __restrict__ x, const T* __restrict__ bias,
                                                         const T* __restrict__ other, int64_t numel,
                                                         int64_t channels, int64_t channel_stride) {
  const int64_t first = (static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x) * kVector;
  if (first >= numel) return;
  const bool has_other = other != nullptr;
  ChannelWalk walk(first, channels, channel_stride);
  if constexpr (Vectorized) {
    Pack<T> xs = *reinterpret_cast<const Pack<T>*>(x + first);
    Pack<T> os = xs;
    if (has_other) os = *reinterpret_cast<const Pack<T>*>(other + first);
#pragma unroll
    for (int k = 0; k < kVector; ++k, walk.Next()) {
      xs.v[k] = Apply<T, A>(xs.v[k], bias, walk.channel, has_other, os.v[k]);
    }
    *reinterpret_cast<Pack<T>*>(x + first) = xs;
  } else {
    for (int64_t i = first; i < numel && i < first + kVector; ++i, walk.Next()) {
      x[i] = Apply<T, A>(x[i], bias, walk.channel, has_other, has_other ? other[i] : x[i]);
    }
  }
}

bool Aligned(const void* p, size_t bytes) { return p == nullptr || reinterpret_cast<uintptr_t>(p) % bytes == 0; }

template <typename T, EpilogueActivation A>
cudaError_t Launch(const ConvEpilogueArgs& a, cudaStream_t stream) {
  const int64_t blocks = (a.numel + int64_t{kThreads} * kVector - 1) / (int64_t{kThreads} * kVector);
  if (blocks > 0x7fffffff) return cudaErrorInvalidConfiguration;
  T* x = static_cast<T*>(a.x);
  const T* bias = static_cast<const T*>(a.bias);
  const T* other = static_cast<const T*>(a.other);
  const bool vectorized =
      a.numel % kVector == 0 && Aligned(x, sizeof(Pack<T>)) && Aligned(other, sizeof(Pack<T>));
  if (vectorized) {
    ConvEpilogue<T, A, true><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(x, bias, other, a.numel,
                                                                                     a.channels, a.channel_stride);
  } else {
    ConvEpilogue<T, A, false><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(x, bias, other, a.numel,
                                                                                      a.channels, a.channel_stride);
  }
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchFor(const ConvEpilogueArgs& a, cudaStream_t stream) {
  switch (a.activation) {
    case EpilogueActivation::kNone: return Launch<T, EpilogueActivation::kNone>(a, stream);
    case EpilogueActivation::kRelu: return Launch<T, EpilogueActivation::kRelu>(a, stream);
    case EpilogueActivation::kRelu6: return Launch<T, EpilogueActivation::kRelu6>(a, stream);
    case EpilogueActivation::kSilu: return Launch<T, EpilogueActivation::kSilu>(a, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t LaunchConvEpilogue(const ConvEpilogueArgs& args, cudaStream_t stream) {
  if (args.numel == 0) return cudaSuccess;
  if (args.x == nullptr || args.numel < 0 || args.channels < 1 || args.channel_stride < 1) return cudaErrorInvalidValue;
  switch (args.dtype) {
    case EpilogueDtype::kFloat32: return LaunchFor<float>(args, stream);
    case EpilogueDtype::kFloat16: return LaunchFor<__half>(args, stream);
    case EpilogueDtype::kBFloat16: return LaunchFor<__nv_bfloat16>(args, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace nimble::accelerate::kernels
