// Running and timing a model without a CUDA graph: the reference outputs of the unmodified frozen
// graph, the libtorch baseline (module.forward through the TorchScript graph executor, as an
// application would call it), and per-op GPU times for the prediction. Not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nimble/accelerate/device_memory.h"
#include "nimble/accelerate/host_tensor.h"
#include "nimble/accelerate/model_graph.h"
#include "nimble/core/status.h"

namespace nimble::accelerate {

// Turns TF32 off in cuBLAS and cuDNN for this process: every side of a comparison computes in fp32.
void DisableTf32();

// kFloat32PrecisionIeee (DisableTf32) or kFloat32PrecisionTf32 (TF32 convolutions, IEEE matmuls: PyTorch's
// defaults) for this process; InvalidArgument for another name.
Status SetFloat32Precision(const std::string& precision);

// The model's graph run once by the TorchScript interpreter on `inputs` (copied to its device), outputs
// copied back. nimble:: operators do nothing here (no stream context), so a scheduled model on the CPU
// computes exactly what its frozen source does. Errors name the model file, the operator that threw
// ("run failed in aten::matmul: ...") and its source line.
StatusOr<std::vector<HostTensor>> RunOnce(const LoadedModel& model, const std::vector<HostTensor>& inputs);

// `iters` calls of module.forward on fixed random inputs after `warmup` untimed ones; each timed with
// CUDA events on the current stream and a wait, latencies in ns. Needs a CUDA model. Without
// `executor_optimizations` the graph executor runs the graph as it is (its fusers off), as
// torch.jit.optimized_execution(False) does in Python.
StatusOr<std::vector<int64_t>> TimeForward(const LoadedModel& model, int32_t warmup, int32_t iters,
                                           bool executor_optimizations = true);

// GPU memory of `runs` calls of module.forward on random inputs (device_memory.h: above the weights
// and the inputs, from an emptied cache): what the libtorch baseline needs beside the model.
StatusOr<MemoryUse> ForwardMemory(const LoadedModel& model, int32_t runs = 2);

// Each op's GPU time in ns (median of `runs` eager runs): a sleep kernel queued ahead of the op keeps
// the GPU busy while the host launches it, so the events around the op see its kernels only.
StatusOr<std::vector<int64_t>> TimeOpsInIsolation(const ModelGraph& model, int32_t runs);

struct GpuLimits {
  std::string name;
  int32_t sm_count = 0;
  int32_t max_threads_per_sm = 0;
};
// The SM count and threads per SM of a CUDA device ("cuda", "cuda:N"); Unavailable without one.
StatusOr<GpuLimits> DeviceLimits(const std::string& device);

// max |a - b| / max |b| over all outputs (0 when both are all zeros); InvalidArgument on a count or
// shape mismatch.
StatusOr<double> MaxRelativeError(const std::vector<HostTensor>& actual, const std::vector<HostTensor>& reference);

// The same tensors as float32 with the values the device holds: float16 and bfloat16 values rounded to
// their dtype (as copying them to the device rounds them), then widened exactly; other tensors as
// they are. The inputs of a model run with FrontEndOptions::widen_to_float32.
std::vector<HostTensor> WidenedToFloat32(std::vector<HostTensor> tensors);

}  // namespace nimble::accelerate
