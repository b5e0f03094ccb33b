// The multi-stream capture's shared-memory carveout, measured: the same capture instantiated a second
// time with kMeasuredCarveout asked for on its kernel nodes that use no shared memory (accelerate/src/
// smem_carveout.h), and that executable kept where it replays faster by more than kMinCarveoutGain. One
// capture, one pool: a memory budget's choice and a branch capture's reuse hold as they were. On the
// H200 it takes ResNet-50 float32's multi-stream replay from 2.36 to 2.02 ms, where a 32-block
// convolution dispatched beside a draining elementwise kernel was packed onto a few SMs; on float32 MoE
// it would cost 5 % (bench/results/concurrency.md, "Shared-memory carveout"): which way a model goes is
// measured, not assumed.
#include <string>

#include "accelerate_session.h"
#include "nimble/accelerate/smem_carveout.h"

namespace nimble::workflow {

using namespace ::nimble::accelerate;  // NOLINT: the session drives the accelerate module step by step

// The alternate must beat the first executable by accelerate's kMinCarveoutGain, as the training step's
// must: a lower median alone would pick by the timing's noise (GPT-2 and Inception-v3 measured 0.2-0.4 %
// apart either way), and report the lower of two draws of the same time.
static_assert(kMeasuredCarveout == kTriedCarveout, "nimble-accelerate tries the carveout the training step tries");

void Session::PrepareCarveoutAlternate() {
  // Not where the carveout is given, nor without a kernel to give it to. A branch capture's branches
  // run concurrently at replay, as a multi-stream capture's streams do.
  if (args_.smem_carveout || multi_graph_ == nullptr || result_.multi.carveout_nodes == 0) return;
  const StatusOr<int32_t> prepared = multi_graph_->PrepareCarveoutAlternate(kMeasuredCarveout);
  if (!prepared.ok()) {
    multi_graph_->DropCarveoutAlternate();
    progress_.Warning("the multi-stream graph was not instantiated with a " + std::to_string(kMeasuredCarveout) +
                      " % shared-memory carveout (" + prepared.status().message() + "); each kernel keeps its own");
  }
}

void Session::KeepFasterCarveout(double alternate_ms) {
  ModeResult& multi = result_.multi;
  const bool faster = alternate_ms > 0 && alternate_ms < multi.median_ms * (1.0 - kMinCarveoutGain);
  if (faster) {
    // The same capture, pool and memsets: only the carveout and the time change.
    multi.carveout_alternate = multi.smem_carveout;
    multi.carveout_alternate_ms = multi.median_ms;
    multi.median_ms = alternate_ms;
    multi.smem_carveout = kMeasuredCarveout;
    multi_graph_->SwapCarveoutAlternate();
  } else {
    multi.carveout_alternate = kMeasuredCarveout;
    multi.carveout_alternate_ms = alternate_ms;
  }
  multi_graph_->DropCarveoutAlternate();
}

}  // namespace nimble::workflow
