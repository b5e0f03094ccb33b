// nimble::Runner, the embedding API: loads a model.nimble made by nimble-accelerate, captures it into
// a CUDA graph on this process's GPU, and runs it for each new input by a replay. Inputs and outputs
// are host float32 tensors (HostTensor), so an application needs no libtorch header; outputs are
// copies, safe to keep across runs. Not thread-safe: one Runner per thread (or a lock around Run).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "nimble/accelerate/aot_graph.h"
#include "nimble/accelerate/artifact_meta.h"
#include "nimble/accelerate/host_tensor.h"
#include "nimble/core/status.h"

namespace nimble::accelerate {

struct RunnerOptions {
  std::string device = "cuda";  // "cuda" or "cuda:N"
  int32_t warmup_runs = 3;
  // CaptureOptions::release_cache: empty the caching allocator's cache around the warm-up so that the
  // memory figures count this capture alone. TensorRunner (a capture in the caller's process) turns it off.
  bool release_cache = true;
  // A model.nimble with several buckets: capture them all into one memory pool (they run one at a time).
  // Off: a pool each, for comparing memory (nimble-run --separate-pools).
  bool share_pool = true;
};

class Runner {
 public:
  // Sets the process's float32 precision (SetFloat32Precision: TF32 off, or TF32 convolutions) before
  // the capture, as nimble-accelerate did when it checked the outputs (meta().float32_precision): the
  // captured kernels keep that math on every replay.
  // NotFound / DataLoss (not a model.nimble), FailedPrecondition (built by another nimble or libtorch
  // version, or for another GPU; an op that cannot be captured), Unavailable (no GPU, out of memory).
  static StatusOr<Runner> Load(const std::string& path, const RunnerOptions& options = {});
  Runner(Runner&&) noexcept;
  Runner& operator=(Runner&&) noexcept;
  ~Runner();

  // One inference: inputs copied into the captured buffers, one replay, outputs copied out. A
  // model.nimble with several buckets (input shapes) runs the one captured for these shapes.
  // InvalidArgument, naming both shapes, when an input's shape is not the captured one (with several
  // buckets: naming the shapes given and every bucket's).
  StatusOr<std::vector<HostTensor>> Run(const std::vector<HostTensor>& inputs);

  // Median latency in ms of `iters` replays of the last Run's bucket on its inputs (the first bucket and
  // the random capture inputs before any), each with its device-to-device input copy.
  StatusOr<double> MedianLatencyMs(int32_t iters);
  // All `iters` latencies, in ns.
  StatusOr<std::vector<int64_t>> Latencies(int32_t iters);
  // The same for bucket `bucket` (0 .. bucket_count() - 1), on the inputs it last ran.
  StatusOr<std::vector<int64_t>> BucketLatencies(int32_t bucket, int32_t iters);

  // The inputs and capture of the last Run's bucket (the first before any).
  const std::vector<TensorSpec>& inputs() const;
  const ArtifactMeta& meta() const;
  const CaptureStats& capture_stats() const;

  // Input shapes captured: 1, or one per bucket of the meta (ArtifactBuckets), in its order.
  int32_t bucket_count() const;
  const std::vector<TensorSpec>& bucket_inputs(int32_t bucket) const;
  const CaptureStats& bucket_capture_stats(int32_t bucket) const;

 private:
  struct State;
  explicit Runner(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace nimble::accelerate
