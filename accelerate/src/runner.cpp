// Runner: LoadArtifact + AotGraph behind a small, torch-free surface.
#include "nimble/accelerate/runner.h"

#include <utility>

#include "artifact_capture.h"
#include "nimble/accelerate/artifact.h"
#include "nimble/accelerate/model_timing.h"
#include "nimble/core/median.h"

namespace nimble::accelerate {

struct Runner::State {
  LoadedArtifact artifact;
  std::unique_ptr<AotGraph> graph;
};

Runner::Runner(std::unique_ptr<State> state) : state_(std::move(state)) {}
Runner::Runner(Runner&&) noexcept = default;
Runner& Runner::operator=(Runner&&) noexcept = default;
Runner::~Runner() = default;

StatusOr<std::unique_ptr<AotGraph>> CaptureArtifact(const LoadedArtifact& artifact, const std::string& path,
                                                    const RunnerOptions& options) {
  if (Status set = SetFloat32Precision(artifact.meta.float32_precision); !set.ok()) {
    return FailedPrecondition(path + " was checked with float32 precision '" + artifact.meta.float32_precision +
                              "', which this nimble does not know: run nimble-accelerate again");
  }
  CaptureOptions capture;
  capture.warmup_runs = options.warmup_runs;
  capture.release_cache = options.release_cache;
  return AotGraph::Capture(artifact.model, capture);
}

StatusOr<Runner> Runner::Load(const std::string& path, const RunnerOptions& options) {
  auto state = std::make_unique<State>();
  NIMBLE_ASSIGN_OR_RETURN(state->artifact, LoadArtifact(path, options.device));
  NIMBLE_ASSIGN_OR_RETURN(state->graph, CaptureArtifact(state->artifact, path, options));
  return Runner(std::move(state));
}

StatusOr<std::vector<HostTensor>> Runner::Run(const std::vector<HostTensor>& inputs) {
  NIMBLE_RETURN_IF_ERROR(state_->graph->SetInputs(inputs));
  NIMBLE_RETURN_IF_ERROR(state_->graph->Replay());
  return state_->graph->Outputs();
}

StatusOr<std::vector<int64_t>> Runner::Latencies(int32_t iters) { return state_->graph->TimeReplays(iters); }

StatusOr<double> Runner::MedianLatencyMs(int32_t iters) {
  if (iters < 1) return InvalidArgument("iterations must be at least 1");
  NIMBLE_ASSIGN_OR_RETURN(std::vector<int64_t> latencies, Latencies(iters));
  return static_cast<double>(Median(std::move(latencies))) / 1e6;
}

const std::vector<TensorSpec>& Runner::inputs() const { return state_->graph->inputs(); }
const ArtifactMeta& Runner::meta() const { return state_->artifact.meta; }
const CaptureStats& Runner::capture_stats() const { return state_->graph->stats(); }

}  // namespace nimble::accelerate
