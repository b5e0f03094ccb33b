// nimble-run's workflow on top of accelerate::Runner: the same path an embedding application takes.
#include "nimble/workflow/run_artifact.h"

#include <filesystem>

#include "nimble/accelerate/cuda_devices.h"
#include "nimble/accelerate/runner.h"

namespace nimble::workflow {

StatusOr<RunArtifactResult> RunArtifact(const RunArtifactOptions& options) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(options.artifact, error)) {
    return NotFound(options.artifact + ": no such file");
  }
  if (accelerate::CudaDeviceCount() == 0) {
    return Unavailable("no CUDA device: " + options.artifact + " replays a CUDA graph and needs a GPU");
  }
  accelerate::RunnerOptions runner_options;
  runner_options.device = options.device;
  NIMBLE_ASSIGN_OR_RETURN(accelerate::Runner runner, accelerate::Runner::Load(options.artifact, runner_options));
  std::vector<accelerate::HostTensor> inputs;
  const std::vector<TensorSpec>& wanted = options.inputs.empty() ? runner.inputs() : options.inputs;
  for (size_t i = 0; i < wanted.size(); ++i) inputs.push_back(accelerate::HostTensor::Random(wanted[i], 42 + i));
  NIMBLE_RETURN_IF_ERROR(runner.Run(inputs).status());
  RunArtifactResult out;
  NIMBLE_ASSIGN_OR_RETURN(out.median_ms, runner.MedianLatencyMs(options.iters));
  const accelerate::CaptureStats& stats = runner.capture_stats();
  out.artifact = options.artifact;
  out.mode = runner.meta().mode;
  out.streams = stats.num_streams;
  out.syncs = stats.num_events;
  out.capture_ns = stats.capture_ns;
  out.peak_memory_bytes = stats.peak_memory_bytes;
  out.graph_pool_bytes = stats.graph_pool_bytes;
  out.iters = options.iters;
  return out;
}

}  // namespace nimble::workflow
