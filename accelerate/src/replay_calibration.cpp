#include "nimble/accelerate/replay_calibration.h"

#include <ATen/cuda/Sleep.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "nimble/core/median.h"
#include "memset_nodes.h"
#include "torch_errors.h"

namespace nimble::accelerate {
namespace {

constexpr int64_t kSpinCycles = 2000;  // about 1 us at the clocks of current data-center GPUs

Status Cuda(cudaError_t code, const std::string& what) {
  if (code == cudaSuccess) return OkStatus();
  return Internal("replay calibration: " + what + ": " + cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ")");
}

// Medians (ns) of `times` replays of `a` and of `b` on `stream`, each between two events on an idle GPU,
// interleaved so that drifting clocks affect both alike.
StatusOr<std::pair<int64_t, int64_t>> TimeInterleaved(cudaGraphExec_t a, cudaGraphExec_t b, cudaStream_t stream,
                                                      int32_t times) {
  cudaEvent_t start = nullptr, stop = nullptr;
  NIMBLE_RETURN_IF_ERROR(Cuda(cudaEventCreate(&start), "cudaEventCreate"));
  if (Status made = Cuda(cudaEventCreate(&stop), "cudaEventCreate"); !made.ok()) {
    (void)cudaEventDestroy(start);
    return made;
  }
  std::vector<int64_t> a_ns, b_ns;
  Status status = OkStatus();
  for (int32_t i = 0; i < 2 * times && status.ok(); ++i) {
    const bool is_b = i % 2 == 1;
    status = Cuda(cudaEventRecord(start, stream), "cudaEventRecord");
    if (status.ok()) status = Cuda(cudaGraphLaunch(is_b ? b : a, stream), "cudaGraphLaunch");
    if (status.ok()) status = Cuda(cudaEventRecord(stop, stream), "cudaEventRecord");
    if (status.ok()) status = Cuda(cudaEventSynchronize(stop), "timed replay");
    float ms = 0;
    if (status.ok()) status = Cuda(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    if (status.ok()) (is_b ? b_ns : a_ns).push_back(static_cast<int64_t>(static_cast<double>(ms) * 1e6));
  }
  (void)cudaEventDestroy(start);
  (void)cudaEventDestroy(stop);
  if (!status.ok()) return status;
  return std::make_pair(Median(std::move(a_ns)), Median(std::move(b_ns)));
}

}  // namespace

struct ReplayCalibration::Impl {
  c10::DeviceIndex device = 0;
  cudaStream_t main = nullptr;
  cudaStream_t side = nullptr;
  cudaEvent_t fork = nullptr;
  cudaEvent_t join = nullptr;
  cudaGraphExec_t chain = nullptr;
  cudaGraphExec_t long_chain = nullptr;  // twice as many kernels: timed only, never recorded
  cudaGraphExec_t diamonds = nullptr;
  int32_t chain_kernels = 0;
  // The chain with a 4-byte memset before each kernel, as captured and with the memsets as fill
  // kernels (MemsetNodeCosts makes them).
  void* word = nullptr;
  cudaGraphExec_t memsets = nullptr;
  cudaGraphExec_t fills = nullptr;

  ~Impl() {
    if (main != nullptr) (void)cudaStreamSynchronize(main);
    for (cudaGraphExec_t exec : {chain, long_chain, diamonds, memsets, fills}) {
      if (exec != nullptr) (void)cudaGraphExecDestroy(exec);
    }
    if (word != nullptr) (void)cudaFree(word);
    if (fork != nullptr) (void)cudaEventDestroy(fork);
    if (join != nullptr) (void)cudaEventDestroy(join);
    if (side != nullptr) (void)cudaStreamDestroy(side);
    if (main != nullptr) (void)cudaStreamDestroy(main);
  }

  // Spin kernels go to the current stream: make `stream` current for each.
  void Spin(cudaStream_t stream) const {
    c10::cuda::CUDAStreamGuard guard(c10::cuda::getStreamFromExternal(stream, device));
    at::cuda::sleep(kSpinCycles);
  }

  // Captures what `body` queues on `main` (and streams forked from it) into an executable graph; with
  // `fill_memsets`, its memset nodes replaced by fill kernels first (all of them, or an error).
  template <typename Body>
  Status Capture(Body body, cudaGraphExec_t* exec, const std::string& what, bool fill_memsets = false) {
    NIMBLE_RETURN_IF_ERROR(Cuda(cudaStreamBeginCapture(main, cudaStreamCaptureModeThreadLocal), what));
    Status queued = OkStatus();
    try {
      queued = body();
    } catch (const std::exception& e) {
      queued = Internal("replay calibration: " + what + ": " + TorchMessage(e));
    }
    cudaGraph_t graph = nullptr;
    const cudaError_t ended = cudaStreamEndCapture(main, &graph);
    NIMBLE_RETURN_IF_ERROR(queued);
    NIMBLE_RETURN_IF_ERROR(Cuda(ended, what + ": cudaStreamEndCapture"));
    if (fill_memsets) {
      StatusOr<MemsetRewrite> rewrite = RewriteMemsetNodes(graph, /*keep=*/false);
      if (!rewrite.ok() || rewrite->kept > 0) {
        (void)cudaGraphDestroy(graph);
        return rewrite.ok() ? FailedPrecondition("replay calibration: " + what + ": " + std::to_string(rewrite->kept) +
                                                 " memset nodes could not become fill kernels")
                            : Status(rewrite.status().code(), "replay calibration: " + what + ": " +
                                                                  rewrite.status().message());
      }
    }
    const cudaError_t made = cudaGraphInstantiate(exec, graph, 0);
    (void)cudaGraphDestroy(graph);
    return Cuda(made, what + ": cudaGraphInstantiate");
  }
};

ReplayCalibration::ReplayCalibration(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ReplayCalibration::~ReplayCalibration() = default;

StatusOr<std::unique_ptr<ReplayCalibration>> ReplayCalibration::Create(const std::string& device, int32_t kernels) {
  auto impl = std::make_unique<Impl>();
  try {
    const c10::Device parsed(device);
    if (!parsed.is_cuda() || c10::cuda::device_count() == 0) return Unavailable("no CUDA device '" + device + "'");
    impl->device = parsed.has_index() ? parsed.index() : c10::cuda::current_device();
  } catch (const std::exception& e) {
    return InvalidArgument("device '" + device + "': " + TorchMessage(e));
  }
  c10::cuda::CUDAGuard on_device(impl->device);
  Impl& s = *impl;
  NIMBLE_RETURN_IF_ERROR(Cuda(cudaStreamCreateWithFlags(&s.main, cudaStreamNonBlocking), "cudaStreamCreate"));
  NIMBLE_RETURN_IF_ERROR(Cuda(cudaStreamCreateWithFlags(&s.side, cudaStreamNonBlocking), "cudaStreamCreate"));
  NIMBLE_RETURN_IF_ERROR(Cuda(cudaEventCreateWithFlags(&s.fork, cudaEventDisableTiming), "cudaEventCreate"));
  NIMBLE_RETURN_IF_ERROR(Cuda(cudaEventCreateWithFlags(&s.join, cudaEventDisableTiming), "cudaEventCreate"));
  s.Spin(s.main);  // the spin kernel's module is loaded before anything is captured
  NIMBLE_RETURN_IF_ERROR(Cuda(cudaStreamSynchronize(s.main), "warm-up"));
  const int32_t n = std::max(kernels, 3);
  s.chain_kernels = n;
  NIMBLE_RETURN_IF_ERROR(s.Capture(
      [&] {
        for (int32_t i = 0; i < n; ++i) s.Spin(s.main);
        return OkStatus();
      },
      &s.chain, "chain capture"));
  NIMBLE_RETURN_IF_ERROR(s.Capture(
      [&] {
        for (int32_t i = 0; i < 2 * n; ++i) s.Spin(s.main);
        return OkStatus();
      },
      &s.long_chain, "chain capture"));
  // A on main; then B on main and C on side, both after A; the next A after both.
  NIMBLE_RETURN_IF_ERROR(s.Capture(
      [&]() -> Status {
        for (int32_t i = 0; i < n / 3; ++i) {
          s.Spin(s.main);
          NIMBLE_RETURN_IF_ERROR(Cuda(cudaEventRecord(s.fork, s.main), "fork record"));
          NIMBLE_RETURN_IF_ERROR(Cuda(cudaStreamWaitEvent(s.side, s.fork, 0), "fork wait"));
          s.Spin(s.main);
          s.Spin(s.side);
          NIMBLE_RETURN_IF_ERROR(Cuda(cudaEventRecord(s.join, s.side), "join record"));
          NIMBLE_RETURN_IF_ERROR(Cuda(cudaStreamWaitEvent(s.main, s.join, 0), "join wait"));
        }
        return OkStatus();
      },
      &s.diamonds, "diamond capture"));
  return std::unique_ptr<ReplayCalibration>(new ReplayCalibration(std::move(impl)));
}

Status ReplayCalibration::Replay(int32_t times) {
  c10::cuda::CUDAGuard on_device(impl_->device);
  for (int32_t i = 0; i < times; ++i) {
    for (cudaGraphExec_t exec : {impl_->chain, impl_->diamonds}) {
      NIMBLE_RETURN_IF_ERROR(Cuda(cudaGraphLaunch(exec, impl_->main), "cudaGraphLaunch"));
      NIMBLE_RETURN_IF_ERROR(Cuda(cudaStreamSynchronize(impl_->main), "replay"));
    }
  }
  return OkStatus();
}

StatusOr<int64_t> ReplayCalibration::LaunchLatency(int32_t times) {
  c10::cuda::CUDAGuard on_device(impl_->device);
  NIMBLE_ASSIGN_OR_RETURN(const auto medians, TimeInterleaved(impl_->chain, impl_->long_chain, impl_->main, times));
  return std::max<int64_t>(0, 2 * medians.first - medians.second);
}

StatusOr<ReplayCalibration::NodeCosts> ReplayCalibration::MemsetNodeCosts(int32_t times) {
  StatusOr<NodeCosts> costs = TimeMemsetNodes(times);
  if (!costs.ok()) (void)cudaGetLastError();  // cleared, so that no later launch check reports it
  return costs;
}

StatusOr<ReplayCalibration::NodeCosts> ReplayCalibration::TimeMemsetNodes(int32_t times) {
  Impl& s = *impl_;
  c10::cuda::CUDAGuard on_device(s.device);
  if (s.word == nullptr) NIMBLE_RETURN_IF_ERROR(Cuda(cudaMalloc(&s.word, sizeof(int32_t)), "cudaMalloc"));
  auto marked_chain = [&]() -> Status {
    for (int32_t i = 0; i < s.chain_kernels; ++i) {
      NIMBLE_RETURN_IF_ERROR(Cuda(cudaMemsetAsync(s.word, 0, sizeof(int32_t), s.main), "cudaMemsetAsync"));
      s.Spin(s.main);
    }
    return OkStatus();
  };
  if (s.memsets == nullptr) NIMBLE_RETURN_IF_ERROR(s.Capture(marked_chain, &s.memsets, "memset chain capture"));
  if (s.fills == nullptr) NIMBLE_RETURN_IF_ERROR(s.Capture(marked_chain, &s.fills, "fill chain capture", true));
  for (cudaGraphExec_t exec : {s.memsets, s.fills}) {
    NIMBLE_RETURN_IF_ERROR(Cuda(cudaGraphLaunch(exec, s.main), "cudaGraphLaunch"));  // uploads it
  }
  NIMBLE_RETURN_IF_ERROR(Cuda(cudaStreamSynchronize(s.main), "memset chains"));
  NIMBLE_ASSIGN_OR_RETURN(const auto memsets, TimeInterleaved(s.chain, s.memsets, s.main, times));
  NIMBLE_ASSIGN_OR_RETURN(const auto fills, TimeInterleaved(s.chain, s.fills, s.main, times));
  NodeCosts costs;
  costs.memset_ns = std::max<int64_t>(0, (memsets.second - memsets.first) / s.chain_kernels);
  costs.fill_ns = std::max<int64_t>(0, (fills.second - fills.first) / s.chain_kernels);
  return costs;
}

}  // namespace nimble::accelerate
