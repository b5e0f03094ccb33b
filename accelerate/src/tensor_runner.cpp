// TensorRunner: input checks, the copy into the captured buffers and the replay, on the caller's stream.
#include "nimble/accelerate/tensor_runner.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include <optional>
#include <utility>

#include "aot_graph_impl.h"
#include "artifact_capture.h"
#include "cuda_status.h"
#include "tensor_checks.h"
#include "tensor_types.h"
#include "nimble/accelerate/artifact.h"
#include "torch_errors.h"

namespace nimble::accelerate {
namespace {

// InvalidArgument naming what differs between input `i` and the buffer it is copied into.
Status CheckInput(const std::string& path, size_t i, const at::Tensor& input, const at::Tensor& buffer) {
  return CheckAgainstBuffer(path + ": input " + std::to_string(i), input, buffer);
}

}  // namespace

struct TensorRunner::State {
  LoadedArtifact artifact;
  std::vector<std::unique_ptr<AotGraph>> graphs;  // one per bucket, in the meta's order
  size_t current = 0;                              // the bucket of the last Run
  std::string path;
  cudaStream_t last_stream = nullptr;  // stream of the last Run; nullptr: none since the capture (waited for)
  cudaEvent_t handover = nullptr;      // orders a Run on a new stream after the last one

  ~State() {
    if (handover != nullptr) (void)cudaEventDestroy(handover);
  }

  // Makes the current stream wait for the last call's stream when they differ, and remembers it.
  Status FollowCurrentStream(c10::DeviceIndex device) {
    const cudaStream_t stream = c10::cuda::getCurrentCUDAStream(device).stream();
    if (last_stream != nullptr && last_stream != stream) {
      NIMBLE_RETURN_IF_ERROR(CudaStatus(cudaEventRecord(handover, last_stream), path + ": ordering after the previous call"));
      NIMBLE_RETURN_IF_ERROR(CudaStatus(cudaStreamWaitEvent(stream, handover, 0), path + ": ordering after the previous call"));
    }
    last_stream = stream;
    return OkStatus();
  }
};

TensorRunner::TensorRunner(std::unique_ptr<State> state) : state_(std::move(state)) {}
// The last replay may still run on the caller's stream, which the graph's own teardown (a wait for its
// capture stream) does not cover: wait for the device before the graph and its buffers go.
TensorRunner::~TensorRunner() {
  if (state_ != nullptr && state_->last_stream != nullptr) (void)cudaDeviceSynchronize();
}

StatusOr<std::unique_ptr<TensorRunner>> TensorRunner::Load(const std::string& path, const RunnerOptions& options) {
  auto state = std::make_unique<State>();
  state->path = path;
  NIMBLE_ASSIGN_OR_RETURN(state->artifact, LoadArtifact(path, options.device));
  // The caller's process: its allocator cache is left as it is (the memory figures may then include it).
  RunnerOptions in_process = options;
  in_process.release_cache = false;
  NIMBLE_ASSIGN_OR_RETURN(state->graphs, CaptureArtifact(state->artifact, path, in_process));
  NIMBLE_RETURN_IF_ERROR(CudaStatus(cudaEventCreateWithFlags(&state->handover, cudaEventDisableTiming),
                                    path + ": creating an event"));
  return std::unique_ptr<TensorRunner>(new TensorRunner(std::move(state)));
}

StatusOr<std::vector<at::Tensor>> TensorRunner::Run(const std::vector<at::Tensor>& inputs) {
  size_t bucket = 0;
  if (state_->graphs.size() > 1) {
    std::vector<std::vector<int64_t>> shapes;
    for (const at::Tensor& input : inputs) {
      shapes.push_back(input.defined() ? input.sizes().vec() : std::vector<int64_t>{});
    }
    NIMBLE_ASSIGN_OR_RETURN(bucket, FindBucket(state_->graphs, shapes, state_->path));
  }
  AotGraph::Impl& impl = *state_->graphs[bucket]->impl_;
  if (inputs.size() != impl.inputs.size()) {
    return InvalidArgument(state_->path + ": the model takes " + std::to_string(impl.inputs.size()) +
                           " input(s), got " + std::to_string(inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    NIMBLE_RETURN_IF_ERROR(CheckInput(state_->path, i, inputs[i], impl.inputs[i]));
  }
  try {
    c10::InferenceMode inference;  // the copies into the buffers are never part of an autograd graph
    NIMBLE_RETURN_IF_ERROR(state_->FollowCurrentStream(impl.device.index()));
    const cudaStream_t stream = c10::cuda::getCurrentCUDAStream(impl.device.index()).stream();
    for (size_t i = 0; i < inputs.size(); ++i) CopyIntoBuffer(impl.inputs[i], inputs[i], stream);
    impl.graph->replay();  // on the current stream of the graph's device
  } catch (const std::exception& e) {
    return Internal(state_->path + ": replay: " + TorchMessage(e));
  }
  state_->current = bucket;
  return impl.outputs;
}

Status TensorRunner::ReplayAsTimed() {
  AotGraph::Impl& impl = *state_->graphs[state_->current]->impl_;
  try {
    NIMBLE_RETURN_IF_ERROR(state_->FollowCurrentStream(impl.device.index()));
    const cudaStream_t stream = c10::cuda::getCurrentCUDAStream(impl.device.index()).stream();
    for (size_t i = 0; i < impl.inputs.size(); ++i) CopyIntoBuffer(impl.inputs[i], impl.next_inputs[i], stream);
    impl.graph->replay();
  } catch (const std::exception& e) {
    return Internal(state_->path + ": replay: " + TorchMessage(e));
  }
  return OkStatus();
}

StatusOr<std::vector<int64_t>> TensorRunner::Latencies(int32_t iters) {
  return BucketLatencies(static_cast<int32_t>(state_->current), iters);
}

StatusOr<std::vector<int64_t>> TensorRunner::BucketLatencies(int32_t bucket, int32_t iters) {
  if (bucket < 0 || bucket >= bucket_count()) {
    return InvalidArgument(state_->path + ": bucket " + std::to_string(bucket) + " does not exist (" +
                           std::to_string(bucket_count()) + " bucket(s))");
  }
  if (iters < 1) return InvalidArgument("iterations must be at least 1");
  NIMBLE_RETURN_IF_ERROR(CudaStatus(cudaDeviceSynchronize(), state_->path + ": waiting for the device"));
  state_->last_stream = nullptr;
  return state_->graphs[bucket]->TimeReplays(iters);
}

const std::vector<TensorSpec>& TensorRunner::inputs() const { return state_->graphs[state_->current]->inputs(); }
const ArtifactMeta& TensorRunner::meta() const { return state_->artifact.meta; }
const CaptureStats& TensorRunner::capture_stats() const { return state_->graphs[state_->current]->stats(); }
int32_t TensorRunner::bucket_count() const { return static_cast<int32_t>(state_->graphs.size()); }
const std::vector<TensorSpec>& TensorRunner::bucket_inputs(int32_t bucket) const {
  return state_->graphs.at(bucket)->inputs();
}
const CaptureStats& TensorRunner::bucket_capture_stats(int32_t bucket) const {
  return state_->graphs.at(bucket)->stats();
}

}  // namespace nimble::accelerate
