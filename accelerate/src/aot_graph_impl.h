// What an AotGraph holds: the scheduled model, its compiled interpreter code, the stream context,
// the capture stream, the static input buffers, the captured graph and its output buffers.
// Private to accelerate/src. Destruction order matters: the graph goes before the buffers' pool
// users and the streams, after a wait for the device.
#pragma once

#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/csrc/jit/runtime/interpreter.h>

#include <memory>
#include <string>
#include <vector>

#include "nimble/accelerate/aot_graph.h"
#include "nimble/core/status.h"
#include "stream_context.h"

namespace nimble::accelerate {

// at::cuda::CUDAGraph with one addition a failed capture needs. capture_begin switches the CUDA
// random generators it registers into capture mode and only capture_end switches them back; after a
// capture that threw first, every later random op on the device would fail ("Offset increment outside
// graph capture"). CUDAGeneratorState::capture_epilogue is not exported by libtorch_cuda 2.11; what it
// does is clear the state's public `capturing_` flag, which this does for each registered state.
//
// And a second executable graph: instantiated from the kept cudaGraph_t after its nodes' attributes
// changed (the shared-memory carveout, smem_carveout.h), it replays the same nodes on the same memory,
// with the same random-generator prologue, so that both can be timed without a second capture (the
// training step's choice, AotGraph::PrepareCarveoutAlternate).
class CapturedGraph : public at::cuda::CUDAGraph {
 public:
  // keep_graph: the captured cudaGraph_t stays after capture_end (raw_cuda_graph()), to be rewritten
  // (memset_nodes.h) or written out, and the graph is instantiated at the first replay instead.
  explicit CapturedGraph(bool keep_graph = false) : at::cuda::CUDAGraph(keep_graph) {}
  ~CapturedGraph();
  CapturedGraph(const CapturedGraph&) = delete;
  CapturedGraph& operator=(const CapturedGraph&) = delete;
  void EndGeneratorCaptures() noexcept;

  // With the graph kept and instantiated: instantiates it again as it now stands, with the first
  // executable's flags, as the alternate. FailedPrecondition without a kept, instantiated graph or with
  // an alternate already made; a failed CUDA call is an error naming it.
  Status InstantiateAlternate();
  bool has_alternate() const { return alternate_ != nullptr; }
  // Instantiates the kept graph now if the first replay has not (before its nodes change). Throws as
  // instantiate() does.
  void EnsureInstantiated() {
    if (has_graph_ && !has_graph_exec_) instantiate();
  }
  // Trades the executable replay() launches with the alternate. No-op without one.
  void SwapAlternate() noexcept;
  // Destroys the alternate (the one not launched; one still running is freed when it ends).
  void DropAlternate() noexcept;

 private:
  cudaGraphExec_t alternate_ = nullptr;
};

// Cleans up after a capture on `stream` that threw anywhere between capture_begin and the end of
// capture_end, in the order the runtime and the allocators need: `stream` is current again, the capture
// is ended if it is still open (its partial graph destroyed), the allocators stop routing allocations to
// `pool` and release it, the random generators leave capture mode, and only then `graph` goes (the
// allocators' routing filter points into it). Each allocator step may fail on its own (capture_begin may
// not have reached it, or capture_end may have done it), so each has its own try. Never throws. A
// capture with side streams joins them back first.
void AbandonGraphCapture(const c10::cuda::CUDAStream& stream, std::unique_ptr<CapturedGraph>& graph,
                         const c10::MempoolId_t& pool) noexcept;

// Copies `src` into the static input buffer `dst` on `stream`: one cudaMemcpyAsync where both are dense
// with the same sizes, strides, dtype and device (a replay's inputs almost always are), which spares the
// replay the dispatcher and TensorIterator's setup, several microseconds of host time between the copy
// and the graph launch at batch 1; anything else (another device or dtype, other strides, a ZeroTensor
// or a tensor without storage) through at::Tensor::copy_. Throws as copy_ does; a failed
// cudaMemcpyAsync throws c10::Error naming it.
void CopyIntoBuffer(const at::Tensor& dst, const at::Tensor& src, cudaStream_t stream);

struct AotGraph::Impl {
  LoadedModel model;
  c10::Device device{c10::kCUDA, 0};
  std::unique_ptr<torch::jit::Code> code;
  std::shared_ptr<StreamSet> streams;  // the capture stream (0) and side streams; shared with the graphs of its pool
  std::unique_ptr<StreamContext> context;
  cudaStream_t capture_stream = nullptr;
  std::vector<TensorSpec> input_specs;
  std::vector<at::Tensor> inputs;       // static buffers the graph reads
  std::vector<at::Tensor> next_inputs;  // what TimeReplays copies in before each replay: the last SetInputs
  std::vector<at::Tensor> outputs;      // captured output buffers
  std::unique_ptr<CapturedGraph> graph;
  CaptureStats stats;

  // Checks the device, counts the schedule's streams and events in the graph, compiles it, takes its
  // streams from `streams` (a set of its own when null; with `branches` only the capture stream) and
  // makes random inputs (from `seed`, on the capture stream and waited for).
  static StatusOr<std::unique_ptr<Impl>> Create(const LoadedModel& scheduled, uint64_t seed,
                                                std::shared_ptr<StreamSet> streams = nullptr, bool branches = false);
  ~Impl();

  c10::cuda::CUDAStream CaptureStream() const;
  // One multi-stream run without capture, then a wait; `what` names it in errors.
  Status RunEager(const std::string& what);
  Status ReplayAndWait();
  StatusOr<std::vector<int64_t>> TimeReplays(int32_t iters);
};

}  // namespace nimble::accelerate
