// The multi-stream capture's shared-memory carveout, measured: the same schedule captured a second time
// with kMeasuredCarveout asked for on its kernel nodes that use no shared memory (accelerate/src/
// smem_carveout.h), and that capture kept where it replays faster by more than kMinCarveoutGain. On the
// H200 it takes ResNet-50 float32's multi-stream replay from 2.36 to 2.02 ms, where a 32-block
// convolution dispatched beside a draining elementwise kernel was packed onto a few SMs; on float32 MoE
// it would cost 5 % (bench/results/concurrency.md, "Shared-memory carveout"): which way a model goes is
// measured, not assumed.
#include <string>
#include <utility>

#include "accelerate_session.h"
#include "nimble/accelerate/smem_carveout.h"

namespace nimble::workflow {

using namespace ::nimble::accelerate;  // NOLINT: the session drives the accelerate module step by step

// The alternate must beat the first capture by accelerate's kMinCarveoutGain, as the training step's
// must: a lower median alone would pick by the timing's noise (GPT-2 and Inception-v3 measured 0.2-0.4 %
// apart either way), and report the lower of two draws of the same time.
static_assert(kMeasuredCarveout == kTriedCarveout, "nimble-accelerate tries the carveout the training step tries");

void Session::CaptureCarveoutAlternate() {
  // Not where the carveout is given, nor under a memory budget or in a branch capture, whose trials
  // and pools a second capture would double, nor without a kernel to give it to.
  if (args_.smem_carveout || multi_graph_ == nullptr || result_.memory_budget_bytes > 0 ||
      result_.multi.branch_capture || result_.multi.carveout_nodes == 0) {
    return;
  }
  const Status captured = CaptureMode(result_.multi.schedule, &carveout_.mode, &carveout_.model, &carveout_.graph,
                                      result_.multi.pool_seed_bytes, kMeasuredCarveout);
  if (!captured.ok()) {
    progress_.Warning("the multi-stream schedule was not captured with a " + std::to_string(kMeasuredCarveout) +
                      " % shared-memory carveout (" + captured.message() + "); each kernel keeps its own");
    carveout_ = {};
  }
}

void Session::KeepFasterCarveout(double alternate_ms) {
  ModeResult& multi = result_.multi;
  const ModeResult& other = carveout_.mode;
  const bool faster = alternate_ms > 0 && alternate_ms < multi.median_ms * (1.0 - kMinCarveoutGain);
  if (faster) {
    // The capture's own figures; the check's errors are already both captures' (CheckOutputs).
    multi.carveout_alternate = multi.smem_carveout;
    multi.carveout_alternate_ms = multi.median_ms;
    multi.median_ms = alternate_ms;
    multi.smem_carveout = other.smem_carveout;
    multi.carveout_nodes = other.carveout_nodes;
    multi.capture_ns = other.capture_ns;
    multi.peak_allocated_bytes = other.peak_allocated_bytes;
    multi.peak_memory_bytes = other.peak_memory_bytes;
    multi.graph_pool_bytes = other.graph_pool_bytes;
    multi.memset_nodes_replaced = other.memset_nodes_replaced;
    multi.memset_nodes_kept = other.memset_nodes_kept;
    std::swap(multi_graph_, carveout_.graph);
    std::swap(multi_model_, carveout_.model);
  } else {
    multi.carveout_alternate = other.smem_carveout;
    multi.carveout_alternate_ms = alternate_ms;
  }
  carveout_ = {};
}

}  // namespace nimble::workflow
