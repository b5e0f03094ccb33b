// The multi-stream capture's shared-memory carveout, measured: the same schedule captured a second time
// with kMeasuredCarveout asked for on its kernel nodes that use no shared memory (accelerate/src/
// smem_carveout.h), and the faster of the two kept. On the H200 it takes ResNet-50 float32's multi-stream
// replay from 2.33 to 2.00 ms, where a 32-block convolution dispatched beside a draining elementwise
// kernel was packed onto a few SMs, and costs float32 MoE's 8 % (bench/results/concurrency.md,
// "Shared-memory carveout"): which way a model goes is measured, not guessed.
#include <utility>

#include "accelerate_session.h"

namespace nimble::workflow {

using namespace ::nimble::accelerate;  // NOLINT: the session drives the accelerate module step by step

void Session::CaptureCarveoutAlternate() {
  // Not where the carveout is given, nor under a memory budget or in a branch capture, whose trials
  // and pools the second capture would double.
  if (args_.smem_carveout || multi_graph_ == nullptr || result_.memory_budget_bytes > 0 ||
      result_.multi.branch_capture) {
    return;
  }
  Status captured = CaptureMode(result_.multi.schedule, &carveout_mode_, &carveout_model_, &carveout_graph_,
                                result_.multi.pool_seed_bytes, kMeasuredCarveout);
  if (captured.ok() && carveout_mode_.carveout_nodes == 0) captured = FailedPrecondition("no kernel node to set");
  if (!captured.ok()) {
    if (captured.code() != StatusCode::kFailedPrecondition) {
      progress_.Warning("the multi-stream schedule was not captured with a " + std::to_string(kMeasuredCarveout) +
                        " % shared-memory carveout (" + captured.message() + "); each kernel keeps its own");
    }
    carveout_graph_.reset();
  }
}

void Session::KeepFasterCarveout(double alternate_ms) {
  ModeResult& multi = result_.multi;
  const bool faster = alternate_ms > 0 && alternate_ms < multi.median_ms;
  multi.carveout_alternate = faster ? multi.smem_carveout : carveout_mode_.smem_carveout;
  multi.carveout_alternate_ms = faster ? multi.median_ms : alternate_ms;
  if (faster) {
    multi.median_ms = alternate_ms;
    multi.smem_carveout = carveout_mode_.smem_carveout;
    multi.carveout_nodes = carveout_mode_.carveout_nodes;
    multi.capture_ns = carveout_mode_.capture_ns;
    std::swap(multi_graph_, carveout_graph_);
    std::swap(multi_model_, carveout_model_);
  }
  carveout_graph_.reset();
}

}  // namespace nimble::workflow
