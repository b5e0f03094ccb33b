// nimble::accelerate::TensorRunner: a model.nimble replayed on device tensors, for callers that already
// hold libtorch tensors (the Python package). Each Run copies the inputs into the captured buffers on
// the caller's current CUDA stream and launches the graph on that stream without waiting, so a call
// orders like any other op on it; the outputs it returns are the captured output buffers themselves,
// overwritten by the next Run (as with torch.cuda.CUDAGraph; with several buckets, by a Run of any
// bucket: they share one memory pool). This header names at::Tensor without
// including libtorch: callers include ATen themselves. Not thread-safe: one runner, one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "nimble/accelerate/aot_graph.h"
#include "nimble/accelerate/artifact_meta.h"
#include "nimble/accelerate/runner.h"
#include "nimble/core/status.h"

namespace at {
class Tensor;
}

namespace nimble::accelerate {

class TensorRunner {
 public:
  // As Runner::Load: checks the file against this process and device, sets the float32 precision the
  // outputs were checked with, captures. Errors as Runner::Load.
  static StatusOr<std::unique_ptr<TensorRunner>> Load(const std::string& path, const RunnerOptions& options = {});
  ~TensorRunner();
  TensorRunner(const TensorRunner&) = delete;
  TensorRunner& operator=(const TensorRunner&) = delete;

  // One replay on the current stream of the captured device; with several buckets, of the one captured
  // for these input shapes. InvalidArgument naming the input and both values when the count, a device,
  // a dtype or a shape differs from the captured ones (with several buckets: the shapes given and every
  // bucket's); nothing is launched then. When the current stream differs from the last call's, it first waits for that
  // stream, so two calls never race on the buffers.
  StatusOr<std::vector<at::Tensor>> Run(const std::vector<at::Tensor>& inputs);

  // The work nimble-run times per replay, on the current stream: the device-to-device copy of the
  // capture's inputs into the buffers, then the replay; nothing checked, nothing returned. The
  // reference the per-call cost of Run is measured against (bench/python_api_bench.py).
  Status ReplayAsTimed();

  // As nimble-run times a replay: `iters` replays of the last Run's bucket on the capture stream, each
  // with its device-to-device input copy, timed with CUDA events (ns). Waits for the device first.
  StatusOr<std::vector<int64_t>> Latencies(int32_t iters);
  StatusOr<std::vector<int64_t>> BucketLatencies(int32_t bucket, int32_t iters);

  // Of the last Run's bucket (the first before any).
  const std::vector<TensorSpec>& inputs() const;
  const ArtifactMeta& meta() const;
  const CaptureStats& capture_stats() const;

  // 1, or one per bucket of the meta, in its order.
  int32_t bucket_count() const;
  const std::vector<TensorSpec>& bucket_inputs(int32_t bucket) const;
  const CaptureStats& bucket_capture_stats(int32_t bucket) const;

  struct State;

 private:
  explicit TensorRunner(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace nimble::accelerate
