// The replay workflow behind `nimble-run`: load a model.nimble in this process (which captures it),
// check its file before the GPU, replay it once on random inputs of the shapes given (which must be
// the captured ones) and time `iters` replays. Built only with libtorch (nimble::workflow_models).
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
  std::vector<TensorSpec> inputs;  // empty: the inputs in the artifact's meta
  int32_t iters = 100;
  std::string device = "cuda";
};

struct RunArtifactResult {
  std::string artifact;
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
