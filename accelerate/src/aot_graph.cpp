// Warm-up, capture and replay of a scheduled graph. The graph runs through the TorchScript
// interpreter directly (torch::jit::Code), not module.forward, so no executor pass reorders or fuses
// ops behind the schedule's back. Capture happens on a stream of our own (capture needs a non-default
// stream); the stream context maps schedule stream 0 to it and owns the side streams.
#include "nimble/accelerate/aot_graph.h"

#include <ATen/core/CachingHostAllocator.h>
#include <ATen/cuda/CUDAGeneratorImpl.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/core/InferenceMode.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "allocation_recorder.h"
#include "aot_graph_impl.h"
#include "cuda_status.h"
#include "failed_op_tracker.h"
#include "graph_exec.h"
#include "loaded_model_impl.h"
#include "memset_nodes.h"
#include "nimble/accelerate/device_memory.h"
#include "record_stream_reuse.h"
#include "smem_carveout.h"

namespace nimble::accelerate {

void CapturedGraph::EndGeneratorCaptures() noexcept {
  for (auto& [state, wholegraph_increment] : captured_generator_states_) state->capturing_ = false;
}

CapturedGraph::~CapturedGraph() { DropAlternate(); }

Status CapturedGraph::InstantiateAlternate() {
  if (!has_graph_ || !has_graph_exec_ || alternate_ != nullptr) {
    return FailedPrecondition("a second executable graph needs the captured graph kept and instantiated, once");
  }
  unsigned long long flags = 0;
  if (const cudaError_t code = cudaGraphExecGetFlags(graph_exec_, &flags); code != cudaSuccess) {
    (void)cudaGetLastError();
    return CudaStatus(code, "reading the executable graph's flags (cudaGraphExecGetFlags)");
  }
  cudaGraphExec_t exec = nullptr;
  const cudaError_t code = cudaGraphInstantiateWithFlags(&exec, graph_, flags);
  if (code != cudaSuccess) {
    (void)cudaGetLastError();
    return CudaStatus(code, "instantiating the graph a second time (cudaGraphInstantiateWithFlags)");
  }
  alternate_ = exec;
  return OkStatus();
}

void CapturedGraph::SwapAlternate() noexcept {
  if (alternate_ != nullptr) std::swap(graph_exec_, alternate_);
}

void CapturedGraph::DropAlternate() noexcept {
  if (alternate_ == nullptr) return;
  (void)cudaGraphExecDestroy(alternate_);  // in flight, it is freed when it completes
  (void)cudaGetLastError();
  alternate_ = nullptr;
}

namespace {

// A node as the dot names it ("node handle" in its label), with its kernel's name where the runtime has one
// (not for kernels launched through the driver API, such as cuBLASLt's).
std::string NodeText(cudaGraphNode_t node) {
  char handle[32];
  std::snprintf(handle, sizeof(handle), "%p", static_cast<void*>(node));
  cudaKernelNodeParams params{};
  const char* name = nullptr;
  if (cudaGraphKernelNodeGetParams(node, &params) != cudaSuccess || params.func == nullptr ||
      cudaFuncGetName(&name, params.func) != cudaSuccess || name == nullptr) {
    (void)cudaGetLastError();  // cleared: the handle names the node
    return handle;
  }
  return std::string(handle) + " (" + name + ")";
}

// The dot cudaGraphDebugDotPrint writes does not tell an edge's type; appended to it as comments: how many
// edges are of each dependency type, and each programmatic one (it lets a kernel start before its
// predecessor has finished). Where the runtime cannot list the edges, a comment says so and the dot stands.
Status AppendEdgeTypes(cudaGraph_t graph, const std::string& path) {
  std::string text;
  size_t count = 0;
  cudaError_t error = cudaGraphGetEdges(graph, nullptr, nullptr, nullptr, &count);
  std::vector<cudaGraphNode_t> from(count), to(count);
  std::vector<cudaGraphEdgeData> data(count);
  if (error == cudaSuccess) error = cudaGraphGetEdges(graph, from.data(), to.data(), data.data(), &count);
  if (error != cudaSuccess) {
    (void)cudaGetLastError();
    text = std::string("// edge types not listed: cudaGraphGetEdges: ") + cudaGetErrorString(error) + "\n";
  } else {
    size_t programmatic = 0;
    std::string lines;
    for (size_t i = 0; i < count; ++i) {
      if (data[i].type == cudaGraphDependencyTypeDefault) continue;
      ++programmatic;
      lines += "// programmatic edge (from port " + std::to_string(data[i].from_port) + "): " + NodeText(from[i]) +
               " -> " + NodeText(to[i]) + "\n";
    }
    text = "// edges by type: " + std::to_string(count - programmatic) + " default, " + std::to_string(programmatic) +
           " programmatic\n" + lines;
  }
  std::ofstream out(path, std::ios::app);
  out << text;
  if (!out) return Internal(path + ": cannot append the edge types");
  return OkStatus();
}

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Whether capture_end got as far as ending the capture: from then on the graph owns its pool and
// releases it when reset. CUDAGraph::pool() refuses exactly when it has not.
bool CaptureEnded(CapturedGraph& graph) {
  try {
    (void)graph.pool();
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

void AbandonGraphCapture(const c10::cuda::CUDAStream& stream, std::unique_ptr<CapturedGraph>& graph,
                         const c10::MempoolId_t& pool) noexcept {
  try {
    c10::cuda::setCurrentCUDAStream(stream);
  } catch (const std::exception&) {
  }
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream.stream(), &status) == cudaSuccess && status != cudaStreamCaptureStatusNone) {
    cudaGraph_t partial = nullptr;
    (void)cudaStreamEndCapture(stream.stream(), &partial);  // an invalidated capture returns an error
    if (partial != nullptr) (void)cudaGraphDestroy(partial);
  }
  if (graph != nullptr && !CaptureEnded(*graph)) {
    const c10::DeviceIndex device = stream.device_index();
    try {
      c10::cuda::CUDACachingAllocator::endAllocateToPool(device, pool);
    } catch (const std::exception&) {
    }
    try {
      at::getHostAllocator(at::kCUDA)->end_allocate_to_pool(pool);
    } catch (const std::exception&) {
    }
    try {
      c10::cuda::CUDACachingAllocator::releasePool(device, pool);
    } catch (const std::exception&) {
    }
    try {
      at::getHostAllocator(at::kCUDA)->release_pool(pool);
    } catch (const std::exception&) {
    }
    graph->EndGeneratorCaptures();
  }
  graph.reset();
  (void)cudaGetLastError();  // the failure's CUDA error must not surface in a later, unrelated check
}

namespace {

// A failed capture of the scheduled graph: its side streams are joined back first (AbandonGraphCapture).
void AbandonCapture(AotGraph::Impl& impl, const c10::MempoolId_t& pool) noexcept {
  impl.context->Abort();
  AbandonGraphCapture(impl.CaptureStream(), impl.graph, pool);
}

// The kept cudaGraph_t as dot, with its edge types appended; no file is left when that fails.
Status WriteDot(AotGraph::Impl& impl, const std::string& path) {
  const cudaError_t written =
      cudaGraphDebugDotPrint(impl.graph->raw_cuda_graph(), path.c_str(), cudaGraphDebugDotFlagsVerbose);
  if (written != cudaSuccess) {
    (void)cudaGetLastError();  // cleared, so that no later check reports it
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
    return Internal(impl.model.path() + ": writing the captured graph to " + path +
                    ": cudaGraphDebugDotPrint: " + cudaGetErrorString(written));
  }
  return AppendEdgeTypes(impl.graph->raw_cuda_graph(), path);
}

// Before the kept graph is instantiated: its memset nodes (memset_nodes.h; with keep_memset_nodes, only
// counted), then the carveout of its kernel nodes without shared memory, the fill kernels included
// (smem_carveout.h; with kKeepCarveout, only counted).
Status RewriteCapturedGraph(AotGraph::Impl& impl, const CaptureOptions& options) {
  StatusOr<MemsetRewrite> rewrite = RewriteMemsetNodes(impl.graph->raw_cuda_graph(), options.keep_memset_nodes);
  if (!rewrite.ok()) return {rewrite.status().code(), impl.model.path() + ": " + rewrite.status().message()};
  impl.stats.memset_nodes_replaced = rewrite->replaced;
  impl.stats.memset_nodes_kept = rewrite->kept;
  StatusOr<int32_t> carveout = SetKernelCarveout(impl.graph->raw_cuda_graph(), options.smem_carveout);
  if (!carveout.ok()) return {carveout.status().code(), impl.model.path() + ": " + carveout.status().message()};
  impl.stats.carveout_nodes = *carveout;
  return OkStatus();
}

// `shared`: the pool of an earlier graph to capture into (a zero id: a pool of our own).
Status WarmUpAndCapture(AotGraph::Impl& impl, const CaptureOptions& options, const MemoryWindow& memory,
                        c10::MempoolId_t shared) {
  const int64_t warmup_start = NowNs();
  for (int32_t run = 0; run < options.warmup_runs; ++run) {
    NIMBLE_RETURN_IF_ERROR(impl.RunEager("warm-up run " + std::to_string(run + 1)));
  }
  const int64_t capture_start = NowNs();
  impl.stats.warmup_ns = capture_start - warmup_start;
  // The warm-up's cached blocks cannot serve the capture (its allocations come from the graph's own
  // pool): returned to the driver, so that the capture's peak does not stack on top of them.
  NIMBLE_RETURN_IF_ERROR(memory.ReleaseCache());
  NIMBLE_ASSIGN_OR_RETURN(const MemoryUse before_capture, memory.Read());
  // A pool of our own, known before capture_begin, so that a failed capture can hand it back (a shared
  // one is handed back as far as this capture took it: the allocator counts its users).
  const bool share = shared.first != 0 || shared.second != 0;
  const c10::MempoolId_t pool = share ? shared : at::cuda::graph_pool_handle();
  // The cudaGraph_t is kept for the memset rewrite, the dot and the carveout alternate; it is instantiated
  // at the first replay.
  impl.graph = std::make_unique<CapturedGraph>(/*keep_graph=*/true);
  // Capture must begin and end on one non-default stream; the guard spans the error path too.
  c10::cuda::CUDAStreamGuard guard(impl.CaptureStream());
  FailedOpTracker failed_op;
  // Outlives AbandonCapture: the allocator clears its per-capture reuse state only while the setting is on.
  RecordStreamReuseScope reuse;
  try {
    c10::InferenceMode inference;
    StreamContextScope scope(impl.context.get());
    std::optional<AllocationRecorder> recorder;
    if (options.trace_allocations) recorder.emplace(pool);
    impl.graph->capture_begin(pool);
    c10::IValue result = RunCode(*impl.code, impl.model.impl().module, impl.inputs);
    impl.graph->capture_end();
    if (recorder) impl.stats.allocation_trace = recorder->Take();
    impl.stats.reused_blocks = impl.context->reused_blocks();
    impl.stats.hazard_edges = impl.context->hazard_edges();
    impl.outputs.clear();
    FlattenTensors(result, &impl.outputs);
  } catch (const std::exception& e) {
    const bool out_of_memory = dynamic_cast<const c10::OutOfMemoryError*>(&e) != nullptr;
    const std::string message = out_of_memory ? TorchMessage(e) : InterpreterMessage(e);
    AbandonCapture(impl, pool);
    const std::string op = failed_op.op().empty() ? "" : failed_op.op() + " failed: ";
    if (out_of_memory) return Unavailable(impl.model.path() + ": out of GPU memory during the capture: " + op + message);
    return FailedPrecondition(impl.model.path() + ": cannot capture the model into a CUDA graph: " + op + message);
  }
  NIMBLE_RETURN_IF_ERROR(RewriteCapturedGraph(impl, options));
  NIMBLE_RETURN_IF_ERROR(impl.ReplayAndWait());  // instantiates a kept graph
  impl.stats.capture_ns = NowNs() - capture_start;
  if (!options.dot_path.empty()) NIMBLE_RETURN_IF_ERROR(WriteDot(impl, options.dot_path));  // after the timing
  NIMBLE_ASSIGN_OR_RETURN(const MemoryUse after, memory.Read());
  impl.stats.peak_allocated_bytes = after.peak_allocated_bytes;
  impl.stats.peak_memory_bytes = after.peak_reserved_bytes;
  impl.stats.graph_pool_bytes = after.held_bytes - before_capture.held_bytes;
  return OkStatus();
}

}  // namespace

StatusOr<std::unique_ptr<AotGraph>> AotGraph::Capture(const LoadedModel& scheduled, const CaptureOptions& options) {
  // Under the cudaMallocAsync backend, captures failed in that allocator's free (cudaFreeAsync: invalid
  // argument, thrown from a tensor's destructor, which ends the process; bench/results/memory.md):
  // refused here instead, naming the setting.
  if (const std::string backend = c10::cuda::CUDACachingAllocator::get()->name(); backend == "cudaMallocAsync") {
    return FailedPrecondition(scheduled.path() + ": CUDA graphs are captured with PyTorch's caching allocator only; this "
                              "process uses its " + backend + " backend (PYTORCH_CUDA_ALLOC_CONF=backend:...); unset it");
  }
  // A graph sharing a pool captures on the same streams, or it could not reuse the pool's free blocks.
  std::shared_ptr<StreamSet> streams =
      options.share_pool_with != nullptr ? options.share_pool_with->impl_->streams : nullptr;
  if (options.share_pool_with != nullptr && options.share_pool_with->impl_->context->branches() != options.branches) {
    return InvalidArgument(scheduled.path() + ": a graph captured with branches shares a pool only with another one");
  }
  NIMBLE_ASSIGN_OR_RETURN(std::unique_ptr<Impl> impl,
                          Impl::Create(scheduled, options.seed, std::move(streams), options.branches));
  // Opened after the static input buffers exist: they are resident in every mode alike.
  StatusOr<MemoryWindow> memory = MemoryWindow::Begin(impl->device.index(), options.release_cache);
  if (!memory.ok()) return Internal(scheduled.path() + ": " + memory.status().message());
  c10::MempoolId_t shared{0, 0};
  if (options.share_pool_with != nullptr) {
    const AotGraph::Impl& earlier = *options.share_pool_with->impl_;
    if (earlier.device != impl->device) {
      return InvalidArgument(scheduled.path() + ": a graph on " + impl->device.str() + " cannot share the pool of one on " +
                             earlier.device.str());
    }
    try {
      shared = earlier.graph->pool();
    } catch (const std::exception& e) {
      return Internal(scheduled.path() + ": the graph to share a pool with has none: " + TorchMessage(e));
    }
  }
  NIMBLE_RETURN_IF_ERROR(WarmUpAndCapture(*impl, options, *memory, shared));
  return std::unique_ptr<AotGraph>(new AotGraph(std::move(impl)));
}

AotGraph::AotGraph(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
AotGraph::~AotGraph() = default;

const std::vector<TensorSpec>& AotGraph::inputs() const { return impl_->input_specs; }
const CaptureStats& AotGraph::stats() const { return impl_->stats; }

Status AotGraph::SetInputs(const std::vector<HostTensor>& inputs) {
  if (inputs.size() != impl_->inputs.size()) {
    return InvalidArgument(impl_->model.path() + ": the model takes " + std::to_string(impl_->inputs.size()) +
                           " input(s), got " + std::to_string(inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorSpec& captured = impl_->input_specs[i];
    if (inputs[i].shape != captured.shape) {
      return InvalidArgument(impl_->model.path() + ": input " + std::to_string(i) + " has shape " +
                             ShapeText(inputs[i].shape) + ", the graph was captured for " + ShapeText(captured.shape));
    }
    if (inputs[i].dtype != captured.dtype) {
      return InvalidArgument(impl_->model.path() + ": input " + std::to_string(i) + " is " +
                             std::string(DTypeName(inputs[i].dtype)) + ", the graph was captured for " +
                             std::string(DTypeName(captured.dtype)));
    }
    if (static_cast<int64_t>(inputs[i].data.size()) != HostTensor::NumElements(inputs[i].shape)) {
      return InvalidArgument("input " + std::to_string(i) + ": data size does not match its shape");
    }
  }
  try {
    // Both on the capture stream: the buffers the graph reads, and the copy TimeReplays refreshes
    // them from, so that timing replays these inputs rather than the ones of the capture.
    c10::cuda::CUDAStreamGuard guard(impl_->CaptureStream());
    for (size_t i = 0; i < inputs.size(); ++i) {
      impl_->inputs[i].copy_(ToDevice(inputs[i], impl_->device));
      impl_->next_inputs[i].copy_(impl_->inputs[i]);
    }
  } catch (const std::exception& e) {
    return Internal(impl_->model.path() + ": copying inputs: " + TorchMessage(e));
  }
  return OkStatus();
}

Status AotGraph::Replay() { return impl_->ReplayAndWait(); }

StatusOr<std::vector<HostTensor>> AotGraph::Outputs() {
  std::vector<HostTensor> outputs;
  try {
    c10::cuda::CUDAStreamGuard guard(impl_->CaptureStream());
    for (const at::Tensor& output : impl_->outputs) outputs.push_back(ToHost(output));
  } catch (const std::exception& e) {
    return Internal(impl_->model.path() + ": copying outputs: " + TorchMessage(e));
  }
  return outputs;
}

StatusOr<std::vector<int64_t>> AotGraph::TimeReplays(int32_t iters) { return impl_->TimeReplays(iters); }

StatusOr<int32_t> AotGraph::PrepareCarveoutAlternate(int32_t percent) {
  Impl& impl = *impl_;
  if (impl.graph == nullptr || impl.graph->has_alternate() || percent < 0) {
    return FailedPrecondition(impl.model.path() + ": a carveout alternate needs a capture without one, and a "
                              "percentage");
  }
  c10::cuda::CUDAGuard device(impl.device);  // the graph's device current for the instantiations
  try {
    impl.graph->EnsureInstantiated();
  } catch (const std::exception& e) {
    return Internal(impl.model.path() + ": instantiating the captured graph: " + TorchMessage(e));
  }
  StatusOr<int32_t> nodes = SetKernelCarveout(impl.graph->raw_cuda_graph(), percent);
  if (!nodes.ok()) return Status(nodes.status().code(), impl.model.path() + ": " + nodes.status().message());
  if (*nodes == 0) return 0;
  if (Status made = impl.graph->InstantiateAlternate(); !made.ok()) {
    return Status(made.code(), impl.model.path() + ": " + made.message());
  }
  return nodes;
}

bool AotGraph::has_carveout_alternate() const { return impl_->graph != nullptr && impl_->graph->has_alternate(); }

void AotGraph::SwapCarveoutAlternate() {
  if (impl_->graph != nullptr) impl_->graph->SwapAlternate();
}

void AotGraph::DropCarveoutAlternate() {
  if (impl_->graph != nullptr) impl_->graph->DropAlternate();
}

}  // namespace nimble::accelerate
