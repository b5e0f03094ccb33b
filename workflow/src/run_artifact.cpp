// nimble-run's workflow on top of accelerate::Runner: the same path an embedding application takes.
#include "nimble/workflow/run_artifact.h"

#include <filesystem>

#include "nimble/accelerate/artifact_meta.h"
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
  runner_options.share_pool = !options.separate_pools;
  NIMBLE_ASSIGN_OR_RETURN(accelerate::Runner runner, accelerate::Runner::Load(options.artifact, runner_options));
  const std::vector<accelerate::ArtifactBucket> meta_buckets = accelerate::ArtifactBuckets(runner.meta());
  RunArtifactResult out;
  out.artifact = options.artifact;
  out.iters = options.iters;
  out.bucket_count = runner.bucket_count();
  out.shared_pool = !options.separate_pools;
  for (int32_t b = 0; b < runner.bucket_count(); ++b) out.pool_bytes += runner.bucket_capture_stats(b).graph_pool_bytes;
  // The buckets to time: the one the given shapes pick, or all.
  std::vector<std::vector<TensorSpec>> runs;
  if (!options.inputs.empty()) {
    runs.push_back(options.inputs);
  } else {
    for (int32_t b = 0; b < runner.bucket_count(); ++b) runs.push_back(runner.bucket_inputs(b));
  }
  for (const std::vector<TensorSpec>& wanted : runs) {
    std::vector<accelerate::HostTensor> inputs;
    for (size_t i = 0; i < wanted.size(); ++i) inputs.push_back(accelerate::HostTensor::Random(wanted[i], 42 + i));
    NIMBLE_RETURN_IF_ERROR(runner.Run(inputs).status());
    RunBucketResult bucket;
    NIMBLE_ASSIGN_OR_RETURN(bucket.median_ms, runner.MedianLatencyMs(options.iters));
    const accelerate::CaptureStats& stats = runner.capture_stats();
    bucket.inputs = TensorSpecsText(runner.inputs());
    for (const accelerate::ArtifactBucket& captured : meta_buckets) {
      if (captured.inputs == runner.inputs()) bucket.mode = captured.mode;
    }
    bucket.streams = stats.num_streams;
    bucket.syncs = stats.num_events;
    bucket.capture_ns = stats.capture_ns;
    bucket.peak_memory_bytes = stats.peak_memory_bytes;
    bucket.graph_pool_bytes = stats.graph_pool_bytes;
    out.buckets.push_back(bucket);
  }
  const RunBucketResult& first = out.buckets.front();
  out.mode = first.mode;
  out.streams = first.streams;
  out.syncs = first.syncs;
  out.capture_ns = first.capture_ns;
  out.peak_memory_bytes = first.peak_memory_bytes;
  out.graph_pool_bytes = first.graph_pool_bytes;
  out.median_ms = first.median_ms;
  return out;
}

}  // namespace nimble::workflow
