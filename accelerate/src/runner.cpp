// Runner: LoadArtifact + one AotGraph per bucket behind a small, torch-free surface; the shared
// capture of a model.nimble's buckets and the choice of one per call.
#include "nimble/accelerate/runner.h"

#include <algorithm>
#include <numeric>
#include <utility>

#include "artifact_capture.h"
#include "nimble/accelerate/artifact.h"
#include "nimble/accelerate/model_timing.h"
#include "nimble/core/median.h"

namespace nimble::accelerate {
namespace {

int64_t InputBytes(const std::vector<TensorSpec>& inputs) {
  int64_t total = 0;
  for (const TensorSpec& spec : inputs) total += HostTensor::NumElements(spec.shape) * static_cast<int64_t>(DTypeBytes(spec.dtype));
  return total;
}

}  // namespace

std::string BucketShapesText(const std::vector<TensorSpec>& inputs) {
  std::string text;
  for (const TensorSpec& spec : inputs) text += (text.empty() ? "" : ", ") + ShapeText(spec.shape);
  return text;
}

StatusOr<std::vector<std::unique_ptr<AotGraph>>> CaptureArtifact(const LoadedArtifact& artifact,
                                                                 const std::string& path,
                                                                 const RunnerOptions& options) {
  if (Status set = SetFloat32Precision(artifact.meta.float32_precision); !set.ok()) {
    return FailedPrecondition(path + " was checked with float32 precision '" + artifact.meta.float32_precision +
                              "', which this nimble does not know: run nimble-accelerate again");
  }
  std::vector<size_t> order(artifact.buckets.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return InputBytes(artifact.buckets[a].inputs()) > InputBytes(artifact.buckets[b].inputs());
  });
  std::vector<std::unique_ptr<AotGraph>> graphs(artifact.buckets.size());
  const std::vector<ArtifactBucket> carveouts = ArtifactBuckets(artifact.meta);  // in the buckets' order
  const AotGraph* first = nullptr;
  for (size_t index : order) {
    CaptureOptions capture;
    capture.warmup_runs = options.warmup_runs;
    capture.release_cache = options.release_cache;
    capture.share_pool_with = options.share_pool ? first : nullptr;
    capture.branches = artifact.meta.branches;
    capture.smem_carveout = carveouts[index].smem_carveout;
    StatusOr<std::unique_ptr<AotGraph>> graph = AotGraph::Capture(artifact.buckets[index], capture);
    if (!graph.ok()) {
      if (artifact.buckets.size() == 1) return graph.status();
      return graph.status().WithContext("bucket " + BucketShapesText(artifact.buckets[index].inputs()));
    }
    graphs[index] = std::move(*graph);
    if (first == nullptr) first = graphs[index].get();
  }
  return graphs;
}

StatusOr<size_t> FindBucket(const std::vector<std::unique_ptr<AotGraph>>& graphs,
                            const std::vector<std::vector<int64_t>>& shapes, const std::string& path) {
  if (graphs.size() == 1) return size_t{0};
  std::string known;
  for (size_t i = 0; i < graphs.size(); ++i) {
    const std::vector<TensorSpec>& inputs = graphs[i]->inputs();
    const bool match = inputs.size() == shapes.size() &&
                       std::equal(inputs.begin(), inputs.end(), shapes.begin(),
                                  [](const TensorSpec& spec, const std::vector<int64_t>& shape) { return spec.shape == shape; });
    if (match) return i;
    known += std::string(known.empty() ? "" : " | ") + BucketShapesText(inputs);
  }
  std::string given;
  for (const std::vector<int64_t>& shape : shapes) given += (given.empty() ? "" : ", ") + ShapeText(shape);
  return InvalidArgument(path + ": no bucket was captured for inputs of shape " + (given.empty() ? "(none)" : given) +
                         "; its buckets: " + known + " (nimble-accelerate --batch-sizes or --bucket captures others)");
}

struct Runner::State {
  LoadedArtifact artifact;
  std::vector<std::unique_ptr<AotGraph>> graphs;  // one per bucket, in the meta's order
  size_t current = 0;                              // the bucket of the last Run
};

Runner::Runner(std::unique_ptr<State> state) : state_(std::move(state)) {}
Runner::Runner(Runner&&) noexcept = default;
Runner& Runner::operator=(Runner&&) noexcept = default;
Runner::~Runner() = default;

StatusOr<Runner> Runner::Load(const std::string& path, const RunnerOptions& options) {
  auto state = std::make_unique<State>();
  NIMBLE_ASSIGN_OR_RETURN(state->artifact, LoadArtifact(path, options.device));
  NIMBLE_ASSIGN_OR_RETURN(state->graphs, CaptureArtifact(state->artifact, path, options));
  return Runner(std::move(state));
}

StatusOr<std::vector<HostTensor>> Runner::Run(const std::vector<HostTensor>& inputs) {
  std::vector<std::vector<int64_t>> shapes;
  for (const HostTensor& input : inputs) shapes.push_back(input.shape);
  NIMBLE_ASSIGN_OR_RETURN(const size_t bucket, FindBucket(state_->graphs, shapes, state_->artifact.model.path()));
  AotGraph& graph = *state_->graphs[bucket];
  NIMBLE_RETURN_IF_ERROR(graph.SetInputs(inputs));
  NIMBLE_RETURN_IF_ERROR(graph.Replay());
  state_->current = bucket;
  return graph.Outputs();
}

StatusOr<std::vector<int64_t>> Runner::Latencies(int32_t iters) { return BucketLatencies(state_->current, iters); }

StatusOr<std::vector<int64_t>> Runner::BucketLatencies(int32_t bucket, int32_t iters) {
  if (bucket < 0 || bucket >= bucket_count()) {
    return InvalidArgument(state_->artifact.model.path() + ": bucket " + std::to_string(bucket) + " does not exist (" +
                           std::to_string(bucket_count()) + " bucket(s))");
  }
  if (iters < 1) return InvalidArgument("iterations must be at least 1");
  return state_->graphs[bucket]->TimeReplays(iters);
}

StatusOr<double> Runner::MedianLatencyMs(int32_t iters) {
  if (iters < 1) return InvalidArgument("iterations must be at least 1");
  NIMBLE_ASSIGN_OR_RETURN(std::vector<int64_t> latencies, Latencies(iters));
  return static_cast<double>(Median(std::move(latencies))) / 1e6;
}

const std::vector<TensorSpec>& Runner::inputs() const { return state_->graphs[state_->current]->inputs(); }
const ArtifactMeta& Runner::meta() const { return state_->artifact.meta; }
const CaptureStats& Runner::capture_stats() const { return state_->graphs[state_->current]->stats(); }
int32_t Runner::bucket_count() const { return static_cast<int32_t>(state_->graphs.size()); }
const std::vector<TensorSpec>& Runner::bucket_inputs(int32_t bucket) const { return state_->graphs.at(bucket)->inputs(); }
const CaptureStats& Runner::bucket_capture_stats(int32_t bucket) const { return state_->graphs.at(bucket)->stats(); }

}  // namespace nimble::accelerate
