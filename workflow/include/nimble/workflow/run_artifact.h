// The replay workflow behind `nimble-run`: load a model.nimble in this process (which captures it),
// check its file before the GPU, replay it once on random inputs of the shapes given (which must be
// the captured ones: of one of its buckets) and time `iters` replays; without shapes, every bucket. Built only with libtorch (nimble::workflow_models).
// One call per process at a time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nimble/core/run.h"
#include "nimble/core/status.h"
#include "nimble/workflow/input_spec.h"

namespace nimble::workflow {

struct RunArtifactOptions {
  std::string artifact;
  std::vector<TensorSpec> inputs;  // empty: every bucket's inputs in the artifact's meta
  int32_t iters = 100;
  std::string device = "cuda";
  bool separate_pools = false;     // a memory pool per bucket instead of one shared (for comparing)
};

struct RunBucketResult {
  std::string inputs;                   // as --input writes them
  RunMode mode = RunMode::kAotSingle;
  int32_t streams = 0;
  int32_t syncs = 0;
  int64_t capture_ns = 0;
  int64_t peak_memory_bytes = 0;
  int64_t graph_pool_bytes = 0;  // what its capture added to the pool
  double median_ms = 0;
};

// The top-level figures are those of the first bucket timed.
struct RunArtifactResult {
  std::string artifact;
  std::vector<RunBucketResult> buckets;  // those timed, in the meta's order
  int32_t bucket_count = 1;              // captured
  int64_t pool_bytes = 0;                // the pool(s) of all buckets' graphs together
  bool shared_pool = true;
  RunMode mode = RunMode::kAotSingle;  // kAotSingle or kAotMulti, as written by nimble-accelerate
  int32_t streams = 0;
  int32_t syncs = 0;
  int64_t capture_ns = 0;
  int64_t peak_memory_bytes = 0;  // peak reserved of warm-up and capture, above weights and inputs
  int64_t graph_pool_bytes = 0;   // what the captured graph holds
  int32_t iters = 0;
  double median_ms = 0;
};

StatusOr<RunArtifactResult> RunArtifact(const RunArtifactOptions& options);

}  // namespace nimble::workflow
