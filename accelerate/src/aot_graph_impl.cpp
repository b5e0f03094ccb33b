// AotGraph::Impl: setup (device and schedule checks, interpreter code, streams, inputs), eager runs,
// replay and timed replays. Every CUDA call's result is checked and reported with what it was for.
#include "aot_graph_impl.h"

#include "cuda_status.h"

#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/core/InferenceMode.h>

#include <algorithm>

#include "failed_op_tracker.h"
#include "graph_exec.h"
#include "loaded_model_impl.h"

namespace nimble::accelerate {
namespace {

// Streams and events the nimble:: operators of `graph` refer to: one more than the largest index.
void CountSchedule(const torch::jit::Graph& graph, int32_t* streams, int32_t* events) {
  *streams = 1;
  *events = 0;
  for (const torch::jit::Node* node : graph.nodes()) {
    const std::string_view kind = node->kind().toQualString();
    if (kind != "nimble::set_stream" && kind != "nimble::record_event" && kind != "nimble::wait_event") continue;
    const auto index = torch::jit::toIValue(node->input(0));
    if (!index || !index->isInt()) continue;
    const auto next = static_cast<int32_t>(index->toInt() + 1);
    if (kind == "nimble::set_stream") *streams = std::max(*streams, next);
    else *events = std::max(*events, next);
  }
}

// Out-of-memory and other errors of a run, with the model file, what was running and, when known,
// the operator that threw.
Status RunError(const LoadedModel& model, const std::string& what, const std::exception& e,
                const std::string& failed_op = "") {
  if (dynamic_cast<const c10::OutOfMemoryError*>(&e) != nullptr) {
    return Unavailable(model.path() + ": out of GPU memory during " + what + ": " + TorchMessage(e));
  }
  const std::string in_op = failed_op.empty() ? "" : " in " + failed_op;
  return FailedPrecondition(model.path() + ": " + what + " failed" + in_op + ": " + InterpreterMessage(e));
}

}  // namespace

void CopyIntoBuffer(const at::Tensor& dst, const at::Tensor& src, cudaStream_t stream) {
  const bool raw = src.layout() == c10::kStrided && src.has_storage() && !src._is_zerotensor() &&
                   src.device() == dst.device() && src.scalar_type() == dst.scalar_type() &&
                   src.sizes() == dst.sizes() && src.strides() == dst.strides() && src.is_non_overlapping_and_dense() &&
                   dst.is_non_overlapping_and_dense() && !src.is_conj() && !src.is_neg();
  if (!raw) {
    dst.copy_(src, /*non_blocking=*/true);
    return;
  }
  if (dst.nbytes() == 0 || src.data_ptr() == dst.data_ptr()) return;  // nothing, or the buffer itself handed in
  // C10_CUDA_CHECK clears the error it throws for.
  C10_CUDA_CHECK(cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(), dst.nbytes(), cudaMemcpyDeviceToDevice, stream));
}

namespace {

// One timed iteration on the current (capture) stream: start event, the copy of next_inputs into the
// graph's buffers, the replay, stop event, a wait. Stops at the first CUDA error, queueing nothing
// after it.
Status TimeOneReplay(AotGraph::Impl& impl, cudaEvent_t start, cudaEvent_t stop, int64_t* ns) {
  NIMBLE_RETURN_IF_ERROR(CudaStatus(cudaEventRecord(start, impl.capture_stream), "timed replay: cudaEventRecord"));
  for (size_t k = 0; k < impl.inputs.size(); ++k) CopyIntoBuffer(impl.inputs[k], impl.next_inputs[k], impl.capture_stream);
  impl.graph->replay();
  NIMBLE_RETURN_IF_ERROR(CudaStatus(cudaEventRecord(stop, impl.capture_stream), "timed replay: cudaEventRecord"));
  NIMBLE_RETURN_IF_ERROR(CudaStatus(cudaEventSynchronize(stop), impl.model.path() + ": timed replay"));
  float ms = 0;
  NIMBLE_RETURN_IF_ERROR(CudaStatus(cudaEventElapsedTime(&ms, start, stop), "timed replay: cudaEventElapsedTime"));
  *ns = static_cast<int64_t>(static_cast<double>(ms) * 1e6);
  return OkStatus();
}

}  // namespace

StatusOr<std::unique_ptr<AotGraph::Impl>> AotGraph::Impl::Create(const LoadedModel& scheduled, uint64_t seed,
                                                                  std::shared_ptr<StreamSet> streams, bool branches) {
  RegisterNimbleOps();
  if (scheduled.empty()) return InvalidArgument("AoT capture: no model");
  auto impl = std::make_unique<Impl>();
  impl->model = scheduled;
  impl->input_specs = scheduled.inputs();
  if (c10::cuda::device_count() == 0) return Unavailable(scheduled.path() + ": no CUDA device: capture needs a GPU");
  try {
    impl->device = c10::Device(scheduled.device());
    if (!impl->device.is_cuda()) {
      return InvalidArgument(scheduled.path() + ": the model is on " + scheduled.device() + ", capture needs CUDA");
    }
    if (!impl->device.has_index()) impl->device.set_index(c10::cuda::current_device());
    c10::cuda::set_device(impl->device.index());
    impl->code = std::make_unique<torch::jit::Code>(scheduled.impl().graph, "forward");
  } catch (const std::exception& e) {
    return RunError(scheduled, "preparing the capture", e);
  }
  int32_t stream_count = 1, events = 0;
  CountSchedule(*scheduled.impl().graph, &stream_count, &events);
  impl->streams = streams != nullptr ? std::move(streams) : std::make_shared<StreamSet>(impl->device.index());
  if (impl->streams->device() != impl->device.index()) {
    return InvalidArgument(scheduled.path() + ": the streams to capture on are of another device");
  }
  NIMBLE_ASSIGN_OR_RETURN(impl->context,
                          StreamContext::Create(impl->device.index(), stream_count, events, impl->streams, branches));
  impl->stats.num_streams = stream_count;
  impl->stats.num_events = events;
  StatusOr<cudaStream_t> capture = impl->streams->At(0);
  if (!capture.ok()) return capture.status().WithContext(scheduled.path() + ": the capture stream");
  impl->capture_stream = *capture;
  // The buffers are made on the capture stream, which every later use of them (warm-up, capture,
  // SetInputs, the timed copies) runs on, and waited for, so they are complete before any of it.
  try {
    c10::cuda::CUDAStreamGuard guard(impl->CaptureStream());
    for (size_t i = 0; i < impl->input_specs.size(); ++i) {
      impl->inputs.push_back(ToDevice(HostTensor::Random(impl->input_specs[i], seed + i), impl->device));
      impl->next_inputs.push_back(impl->inputs.back().clone());
    }
  } catch (const std::exception& e) {
    return RunError(scheduled, "preparing the capture", e);
  }
  NIMBLE_RETURN_IF_ERROR(CudaStatus(cudaStreamSynchronize(impl->capture_stream),
                                    scheduled.path() + ": preparing the capture inputs"));
  return impl;
}

AotGraph::Impl::~Impl() {
  if (capture_stream != nullptr) (void)cudaStreamSynchronize(capture_stream);
  graph.reset();
  outputs.clear();
  context.reset();
  streams.reset();  // destroys the streams unless a graph sharing them is still alive
}

c10::cuda::CUDAStream AotGraph::Impl::CaptureStream() const {
  return c10::cuda::getStreamFromExternal(capture_stream, device.index());
}

Status AotGraph::Impl::RunEager(const std::string& what) {
  // The guard spans the error path: Abort makes the capture stream current, the guard then restores
  // the caller's stream.
  c10::cuda::CUDAStreamGuard guard(CaptureStream());
  FailedOpTracker failed_op;
  try {
    c10::InferenceMode inference;
    StreamContextScope scope(context.get());
    c10::IValue result = RunCode(*code, model.impl().module, inputs);
    (void)result;
  } catch (const std::exception& e) {
    context->Abort();  // side streams joined, so the wait below covers their work too
    (void)cudaStreamSynchronize(capture_stream);
    return RunError(model, what, e, failed_op.op());
  }
  return CudaStatus(cudaStreamSynchronize(capture_stream), model.path() + ": " + what);
}

Status AotGraph::Impl::ReplayAndWait() {
  if (graph == nullptr) return FailedPrecondition(model.path() + ": nothing captured");
  try {
    c10::cuda::CUDAStreamGuard guard(CaptureStream());
    graph->replay();
  } catch (const std::exception& e) {
    return RunError(model, "graph replay", e);
  }
  return CudaStatus(cudaStreamSynchronize(capture_stream), model.path() + ": graph replay");
}

StatusOr<std::vector<int64_t>> AotGraph::Impl::TimeReplays(int32_t iters) {
  if (graph == nullptr) return FailedPrecondition(model.path() + ": nothing captured");
  cudaEvent_t start = nullptr, stop = nullptr;
  NIMBLE_RETURN_IF_ERROR(CudaStatus(cudaEventCreate(&start), "timing event"));
  if (Status created = CudaStatus(cudaEventCreate(&stop), "timing event"); !created.ok()) {
    (void)cudaEventDestroy(start);
    return created;
  }
  std::vector<int64_t> latencies;
  Status status = OkStatus();
  try {
    c10::cuda::CUDAStreamGuard guard(CaptureStream());
    for (int32_t i = 0; i < iters && status.ok(); ++i) {
      int64_t ns = 0;
      status = TimeOneReplay(*this, start, stop, &ns);
      if (status.ok()) latencies.push_back(ns);
    }
  } catch (const std::exception& e) {
    status = RunError(model, "timed replay", e);
  }
  (void)cudaEventDestroy(start);
  (void)cudaEventDestroy(stop);
  if (!status.ok()) return status;
  return latencies;
}

}  // namespace nimble::accelerate
