// The model-profiling workflow behind `nimble-prof model.pt`: load a TorchScript model on the GPU,
// run warm-up iterations, time iterations with the collector off (the latency), record iterations
// op by op with the in-process collector, attribute every kernel to its op, write the run, its graph
// and its report's results into the run database in one writer, and return the report. Builds
// without libtorch or CUDA keep the API and fail with FailedPrecondition saying how to get it.
// One call per process at a time (it owns the GPU and CUPTI while it runs).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nimble/analysis/op_attribution.h"
#include "nimble/core/status.h"
#include "nimble/workflow/input_spec.h"
#include "nimble/workflow/progress.h"
#include "nimble/workflow/report.h"

namespace nimble::workflow {

// The NVTX-like range each recorded iteration is stored as (model profiles and nimble-accelerate's
// recorded replays); `report` and the viewer find iterations by it.
inline constexpr char kProfileIterationRange[] = "nimble-prof iteration";

struct ProfileOptions {
  std::string model;
  std::vector<TensorSpec> inputs;  // one per forward argument
  std::string output;           // empty: DefaultProfileOutput(model)
  int32_t iters = 20;           // recorded iterations
  int32_t warmup = 5;           // unrecorded first (one always runs: it checks outputs)
  int32_t timed_iters = 100;    // collector off: the latency, op by op and module.forward
  std::string device = "cuda";
  bool optimize = true;         // conv-batchnorm folding
  bool cuda_fusions = false;    // cuDNN conv+add+relu fusions
  bool conv_epilogues = true;   // a convolution's bias, residual add and activation in one kernel
  bool tf32 = true;             // PyTorch's default; false: IEEE fp32, as nimble-accelerate runs
  std::string memory_format = "auto";  // the convolutions' layout, as nimble-accelerate --memory-format
  std::string save_module;      // where to write the module as profiled; empty: nowhere
  size_t top_gaps = 10;
  std::string command_line;     // stored with the run
};

// What the report cannot know: measurements of the profiling itself.
struct ProfileMeasurements {
  int64_t ops = 0;
  bool channels_last = false;             // the front end put the convolutions in channels_last
  int64_t graph_nodes = 0;
  int64_t load_ns = 0;
  int64_t shape_run_ns = 0;
  std::vector<int64_t> warmup_wall_ns;    // steady clock, collector off
  std::vector<int64_t> timed_wall_ns;     // steady clock, collector off: the latency reported
  std::vector<int64_t> forward_ns;        // module.forward, CUDA events, collector off
  std::vector<int64_t> profiled_wall_ns;  // steady clock, collector on
  double forward_diff = -1;               // eager outputs against the module's forward
  int64_t api_calls_recorded = 0;
  std::vector<std::string> cupti_libraries;
  analysis::OpAttribution attribution;

  int64_t latency_ns() const;   // median of timed_wall_ns
  int64_t recorded_ns() const;  // median of profiled_wall_ns
};

struct ProfileResult {
  std::string path;             // the run database written
  RunReport report;             // the run's report, as stored
  ProfileMeasurements measured;
  double aot_single_ms = 0;     // predicted, from the report
  double aot_multi_ms = 0;
  // Predicted speedup over the latency measured with the collector off.
  double Speedup(double predicted_ms) const;
};

// "<model file stem>.nimble.db" in the working directory.
std::string DefaultProfileOutput(const std::string& model_path);

// Checks what can be checked before any GPU work: inputs given, a CUDA device name, and an output
// that can take a new run (its directory exists; an existing file is a run database).
Status CheckProfileOptions(const ProfileOptions& options);

StatusOr<ProfileResult> ProfileModel(const ProfileOptions& options, const ProgressFn& progress = {});

}  // namespace nimble::workflow
