// A scheduled model captured into one CUDA graph, ahead of time: warm-up runs on every stream (cuDNN
// and cuBLAS handles and workspaces), a pre-run, then one run captured on a non-default stream with the
// side streams forked from and joined back to it. Inputs live in static buffers that each replay reads;
// outputs are the captured output buffers, overwritten by every replay (Outputs() copies them out).
// Not thread-safe: one AotGraph, one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "nimble/accelerate/host_tensor.h"
#include "nimble/accelerate/loaded_model.h"
#include "nimble/accelerate/smem_carveout.h"
#include "nimble/core/allocation_trace.h"
#include "nimble/core/status.h"

namespace nimble::accelerate {

struct CaptureOptions {
  int32_t warmup_runs = 3;  // eager runs of the scheduled graph before the capture
  uint64_t seed = 0;        // of the random inputs the warm-up and capture use
  // Empty the caching allocator's cache before the warm-up and between warm-up and capture (and wait for
  // the device), so that the memory figures count this capture alone and the capture's peak does not
  // stack on the warm-up's cache. Off (a capture inside someone else's process: the Python runner),
  // nothing is emptied and the peaks may include blocks cached before.
  bool release_cache = true;
  // Capture into the memory pool of this earlier graph, on its capture and side streams (the caching
  // allocator reuses a free block only on the stream that made it), instead of a pool and streams of its
  // own: the two then reuse each other's intermediate blocks, so they must never replay at the same time
  // (their capture stream is one, and TensorRunner orders calls on other streams). Each keeps its own
  // inputs and outputs. The pool and the streams live while either graph does.
  const class AotGraph* share_pool_with = nullptr;
  // Record the caching allocator's requests in the capture's pool, op by op, into
  // CaptureStats::allocation_trace (ops named by a rewrite with RewriteOptions::mark_ops; otherwise
  // every event is op -1): what analysis/memory_prediction.h replays for other stream assignments.
  bool trace_allocations = false;
  // Write the captured CUDA graph as Graphviz dot to this file (cudaGraphDebugDotPrint, verbose: every
  // node with its type, kernel and launch parameters, and every edge), after the capture's first replay
  // and outside its timing; the graph's cudaGraph_t is then kept for the AotGraph's life. Empty: nothing
  // written. A file that cannot be written fails the capture, naming it, and leaves no partial file.
  std::string dot_path;
  // Capture a multi-stream schedule on one stream, each schedule stream a branch of the graph
  // (branch_capture.h): the replay runs the branches concurrently, and the graph's pool reuses memory
  // freed on one branch for another, ordered after the free. Warm-up runs are single-stream. A graph
  // sharing a pool must be captured the same way as the graph it shares with.
  bool branches = false;
  // Leave the capture's memset nodes as they are. By default each small one with plain edges is
  // replaced by a kernel writing the same bytes before instantiation (a memset node costs a replay more:
  // src/memset_nodes.h).
  bool keep_memset_nodes = false;
  // The shared-memory carveout asked for on the kernel nodes that use no shared memory, in percent
  // (src/smem_carveout.h); kKeepCarveout leaves each kernel's own.
  int32_t smem_carveout = kKeepCarveout;
};

struct CaptureStats {
  int32_t num_streams = 0;
  int32_t num_events = 0;
  int64_t warmup_ns = 0;
  int64_t capture_ns = 0;          // capture, instantiation and the first replay
  // GPU memory of the warm-up and capture (device_memory.h): peaks above what was resident before them
  // (weights, the input buffers, other graphs), the warm-up's cache released before the capture.
  int64_t peak_allocated_bytes = 0;
  int64_t peak_memory_bytes = 0;   // peak reserved bytes
  int64_t graph_pool_bytes = 0;    // reserved bytes the capture added and the graph holds (its private pool,
                                   // or what it added to the shared one)
  AllocationTrace allocation_trace;  // with CaptureOptions::trace_allocations
  // With CaptureOptions::branches: allocations that reused memory another branch freed, and the graph
  // dependencies added to order them after it.
  int64_t reused_blocks = 0;
  int64_t hazard_edges = 0;
  // Memset nodes replaced by fill kernels, and those kept (CaptureOptions::keep_memset_nodes, or not
  // replaceable).
  int32_t memset_nodes_replaced = 0;
  int32_t memset_nodes_kept = 0;
  // Kernel nodes without shared memory: those given CaptureOptions::smem_carveout (unless kKeepCarveout).
  int32_t carveout_nodes = 0;
};

class AotGraph {
 public:
  // `scheduled` must be a rewritten model (stream_rewrite.h) or one loaded from a model.nimble, on a
  // CUDA device. Errors: Unavailable (no GPU, out of GPU memory), FailedPrecondition naming the
  // operator and source line when an op cannot be captured (the failed capture is ended and its
  // memory pool released, so the process can go on using the GPU).
  static StatusOr<std::unique_ptr<AotGraph>> Capture(const LoadedModel& scheduled, const CaptureOptions& options = {});
  ~AotGraph();
  AotGraph(const AotGraph&) = delete;
  AotGraph& operator=(const AotGraph&) = delete;

  // Copies `inputs` into the static input buffers (and keeps them for TimeReplays). InvalidArgument
  // when the count or a shape differs from the captured ones (the message gives both).
  Status SetInputs(const std::vector<HostTensor>& inputs);
  // One replay on the capture stream, then waits for it. Errors name the CUDA error.
  Status Replay();
  // The output buffers, copied to the host (tensors of the output in order, tuples flattened).
  StatusOr<std::vector<HostTensor>> Outputs();
  // `iters` timed iterations, each a device-to-device copy of the inputs last given to SetInputs
  // (before any, the random inputs of the capture) into the buffers followed by a replay, timed with
  // CUDA events on the capture stream; latencies in ns. The buffers hold those inputs afterwards.
  StatusOr<std::vector<int64_t>> TimeReplays(int32_t iters);

  // The capture's shared-memory carveout measured from this one capture (smem_carveout.h): the graph
  // instantiated as captured (if no replay has yet), then its kernel nodes without shared memory given
  // `percent` and the graph instantiated a second time, as the alternate. Returns those nodes; with
  // none, no alternate is made. Replay, Outputs and TimeReplays run the alternate while
  // SwapCarveoutAlternate has it swapped in. No second pool: both replay the same nodes on the same
  // memory. Afterwards the kept cudaGraph_t's nodes ask for `percent` whichever executable is kept.
  // FailedPrecondition with an alternate already made or a negative percentage (nothing changed);
  // other errors name the model and the CUDA call, the first executable left as it was.
  StatusOr<int32_t> PrepareCarveoutAlternate(int32_t percent);
  bool has_carveout_alternate() const;
  void SwapCarveoutAlternate();
  // Destroys the executable not replayed.
  void DropCarveoutAlternate();

  const std::vector<TensorSpec>& inputs() const;
  const CaptureStats& stats() const;

  struct Impl;

 private:
  friend class TensorRunner;  // replays on device tensors through the buffers (tensor_runner.h)
  explicit AotGraph(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace nimble::accelerate
