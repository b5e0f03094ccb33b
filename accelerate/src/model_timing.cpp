// Reference runs and baseline timings. Per-op times use the eager runner's op brackets: a sleep kernel
// queued at each op's start holds the GPU while the host prepares the op, so the event pair around the
// op measures its kernels back to back rather than the host's launch pace.
#include "nimble/accelerate/model_timing.h"

#include <ATen/Context.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/Sleep.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/core/InferenceMode.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/csrc/jit/runtime/graph_executor.h>

#include <algorithm>

#include "failed_op_tracker.h"
#include "graph_exec.h"
#include "loaded_model_impl.h"
#include "nimble/accelerate/artifact_meta.h"
#include "nimble/accelerate/eager_runner.h"
#include "nimble/core/median.h"
#include "stream_context.h"

namespace nimble::accelerate {
namespace {

constexpr int64_t kSleepCycles = 400000;  // ~0.2 ms: longer than the host needs to launch one op

Status CudaCheck(cudaError_t code, const std::string& what) {
  if (code == cudaSuccess) return OkStatus();
  return Internal(what + ": " + cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ")");
}

class OpEventObserver : public OpObserver {
 public:
  explicit OpEventObserver(int32_t num_ops) : begin_(static_cast<size_t>(num_ops)), end_(begin_.size()) {}
  ~OpEventObserver() override {
    for (cudaEvent_t event : begin_) (void)cudaEventDestroy(event);
    for (cudaEvent_t event : end_) (void)cudaEventDestroy(event);
  }
  Status Init() {
    for (size_t i = 0; i < begin_.size(); ++i) {
      NIMBLE_RETURN_IF_ERROR(CudaCheck(cudaEventCreate(&begin_[i]), "op timing event"));
      NIMBLE_RETURN_IF_ERROR(CudaCheck(cudaEventCreate(&end_[i]), "op timing event"));
    }
    return OkStatus();
  }
  void OnOpBegin(OpId op) override {
    at::cuda::sleep(kSleepCycles);
    Note(cudaEventRecord(begin_[static_cast<size_t>(op.value())], c10::cuda::getCurrentCUDAStream().stream()));
  }
  void OnOpEnd(OpId op) override {
    Note(cudaEventRecord(end_[static_cast<size_t>(op.value())], c10::cuda::getCurrentCUDAStream().stream()));
  }
  // After the iteration's wait: each op's elapsed time, appended to `samples`.
  Status Collect(std::vector<std::vector<int64_t>>* samples) {
    NIMBLE_RETURN_IF_ERROR(CudaCheck(first_error_, "op timing: cudaEventRecord"));
    for (size_t i = 0; i < begin_.size(); ++i) {
      float ms = 0;
      NIMBLE_RETURN_IF_ERROR(CudaCheck(cudaEventElapsedTime(&ms, begin_[i], end_[i]), "op timing"));
      (*samples)[i].push_back(static_cast<int64_t>(static_cast<double>(ms) * 1e6));
    }
    return OkStatus();
  }

 private:
  void Note(cudaError_t code) {
    if (code != cudaSuccess && first_error_ == cudaSuccess) first_error_ = code;
  }
  std::vector<cudaEvent_t> begin_, end_;
  cudaError_t first_error_ = cudaSuccess;
};

}  // namespace

StatusOr<GpuLimits> DeviceLimits(const std::string& device) {
  try {
    const c10::Device parsed(device);
    if (!parsed.is_cuda() || c10::cuda::device_count() == 0) return Unavailable("no CUDA device '" + device + "'");
    const auto* properties = at::cuda::getDeviceProperties(parsed.has_index() ? parsed.index() : 0);
    return GpuLimits{properties->name, properties->multiProcessorCount, properties->maxThreadsPerMultiProcessor};
  } catch (const std::exception& e) {
    return Unavailable("device '" + device + "': " + TorchMessage(e));
  }
}

void DisableTf32() {
  at::globalContext().setAllowTF32CuBLAS(false);
  at::globalContext().setAllowTF32CuDNN(false);
}

Status SetFloat32Precision(const std::string& precision) {
  if (precision == kFloat32PrecisionIeee) {
    DisableTf32();
    return OkStatus();
  }
  if (precision == kFloat32PrecisionTf32) {
    at::globalContext().setAllowTF32CuBLAS(false);
    at::globalContext().setAllowTF32CuDNN(true);
    return OkStatus();
  }
  return InvalidArgument("float32 precision '" + precision + "': expected '" + kFloat32PrecisionIeee + "' or '" +
                         kFloat32PrecisionTf32 + "'");
}

StatusOr<std::vector<HostTensor>> RunOnce(const LoadedModel& model, const std::vector<HostTensor>& inputs) {
  RegisterNimbleOps();
  if (model.empty()) return InvalidArgument("run: no model");
  FailedOpTracker failed_op;
  try {
    c10::InferenceMode inference;
    StreamContextScope no_streams(nullptr);
    const c10::Device device(model.device());
    std::vector<at::Tensor> device_inputs;
    for (const HostTensor& input : inputs) device_inputs.push_back(ToDevice(input, device));
    torch::jit::Code code(model.impl().graph, "forward");
    std::vector<at::Tensor> outputs;
    FlattenTensors(RunCode(code, model.impl().module, device_inputs), &outputs);
    std::vector<HostTensor> host;
    for (const at::Tensor& output : outputs) host.push_back(ToHost(output));
    return host;
  } catch (const std::exception& e) {
    const std::string in_op = failed_op.op().empty() ? "" : " in " + failed_op.op();
    return FailedPrecondition(model.path() + ": run failed" + in_op + ": " + InterpreterMessage(e));
  }
}

StatusOr<std::vector<int64_t>> TimeForward(const LoadedModel& model, int32_t warmup, int32_t iters,
                                           bool executor_optimizations) {
  if (model.empty()) return InvalidArgument("timing: no model");
  cudaEvent_t start = nullptr, stop = nullptr;
  NIMBLE_RETURN_IF_ERROR(CudaCheck(cudaEventCreate(&start), "timing event"));
  NIMBLE_RETURN_IF_ERROR(CudaCheck(cudaEventCreate(&stop), "timing event"));
  std::vector<int64_t> latencies;
  Status status = OkStatus();
  try {
    c10::InferenceMode inference;
    torch::jit::GraphOptimizerEnabledGuard optimizations(executor_optimizations);
    const c10::Device device(model.device());
    std::vector<c10::IValue> inputs;
    for (size_t i = 0; i < model.inputs().size(); ++i) {
      inputs.emplace_back(ToDevice(HostTensor::Random(model.inputs()[i], 7 + i), device));
    }
    torch::jit::Module module = model.impl().module;
    for (int32_t i = 0; i < warmup + iters && status.ok(); ++i) {
      const cudaStream_t stream = c10::cuda::getCurrentCUDAStream().stream();
      status = CudaCheck(cudaEventRecord(start, stream), "cudaEventRecord");
      module.forward(inputs);
      if (status.ok()) status = CudaCheck(cudaEventRecord(stop, stream), "cudaEventRecord");
      if (status.ok()) status = CudaCheck(cudaEventSynchronize(stop), "module.forward");
      float ms = 0;
      if (status.ok()) status = CudaCheck(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
      if (i >= warmup) latencies.push_back(static_cast<int64_t>(static_cast<double>(ms) * 1e6));
    }
  } catch (const std::exception& e) {
    status = FailedPrecondition(model.path() + ": module.forward failed: " + InterpreterMessage(e));
  }
  (void)cudaEventDestroy(start);
  (void)cudaEventDestroy(stop);
  if (!status.ok()) return status;
  return latencies;
}

StatusOr<MemoryUse> ForwardMemory(const LoadedModel& model, int32_t runs) {
  if (model.empty()) return InvalidArgument("memory: no model");
  try {
    c10::InferenceMode inference;
    const c10::Device device(model.device());
    if (!device.is_cuda()) return InvalidArgument(model.path() + ": the model is on " + model.device() + ", not CUDA");
    std::vector<c10::IValue> inputs;
    for (size_t i = 0; i < model.inputs().size(); ++i) {
      inputs.emplace_back(ToDevice(HostTensor::Random(model.inputs()[i], 7 + i), device));
    }
    NIMBLE_ASSIGN_OR_RETURN(MemoryWindow window,
                            MemoryWindow::Begin(device.has_index() ? device.index() : c10::cuda::current_device()));
    torch::jit::Module module = model.impl().module;
    for (int32_t i = 0; i < runs; ++i) (void)module.forward(inputs);
    NIMBLE_RETURN_IF_ERROR(CudaCheck(cudaDeviceSynchronize(), model.path() + ": module.forward"));
    return window.Read();
  } catch (const std::exception& e) {
    return FailedPrecondition(model.path() + ": module.forward failed: " + InterpreterMessage(e));
  }
}

StatusOr<std::vector<int64_t>> TimeOpsInIsolation(const ModelGraph& model, int32_t runs) {
  NIMBLE_ASSIGN_OR_RETURN(std::unique_ptr<EagerRunner> runner, EagerRunner::Create(model));
  const auto num_ops = static_cast<int32_t>(model.graph.ops.size());
  OpEventObserver observer(num_ops);
  NIMBLE_RETURN_IF_ERROR(observer.Init());
  NIMBLE_RETURN_IF_ERROR(runner->RunIteration(nullptr).status());  // warm-up: handles, autotuning
  std::vector<std::vector<int64_t>> samples(static_cast<size_t>(num_ops));
  for (int32_t run = 0; run < std::max(runs, 1); ++run) {
    NIMBLE_RETURN_IF_ERROR(runner->RunIteration(&observer).status());
    NIMBLE_RETURN_IF_ERROR(observer.Collect(&samples));
  }
  std::vector<int64_t> op_ns;
  for (auto& op_samples : samples) op_ns.push_back(Median(std::move(op_samples)));
  return op_ns;
}

}  // namespace nimble::accelerate
