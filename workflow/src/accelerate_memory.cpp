// The accelerate session's memory steps: the allocator trace of a single-stream capture, the graph
// pools predicted from it (analysis/memory_prediction.h), and the pools seeded per stream.
#include <string>
#include <utility>
#include <vector>

#include "accelerate_session.h"
#include "nimble/analysis/memory_prediction.h"
#include "nimble/workflow/format.h"

namespace nimble::workflow {

using namespace ::nimble::accelerate;  // NOLINT: the session drives the accelerate module step by step
namespace {

std::string MiB(int64_t bytes) { return FormatMiB(bytes) + " MiB"; }

}  // namespace

void Session::PredictMemory() {
  if (!single_trace_) return;
  auto fill = [this](const StreamAssignment& schedule, auto* out, const std::vector<int64_t>& seeds) {
    const std::optional<analysis::PoolPrediction> pool = PredictPool(schedule, seeds);
    if (!pool) return;
    out->predicted_graph_pool_bytes = pool->segment_bytes;
    out->predicted_pool_streams = pool->streams;
    out->predicted_pool_peak_allocated_bytes = pool->peak_allocated_bytes;
  };
  // A branch capture's pool is one stream's (the prediction models a pool per stream).
  for (ModeResult* mode : {&result_.single, &result_.multi}) {
    if (mode->captured && !mode->branch_capture) fill(mode->schedule, mode, mode->pool_seed_bytes);
  }
  for (MemoryTrial& trial : result_.memory_trials) {
    if (!args_.cross_stream_reuse || trial.schedule.num_streams < 2) fill(trial.schedule, &trial, trial.pool_seed_bytes);
  }
}

void Session::TraceAllocations() {
  // The replay models the default release of cross-stream values, not the comparison policies.
  if (!args_.predict_memory || args_.keep_cross_stream_values || args_.record_cross_stream_values) return;
  progress_.Step("recording the allocator's requests of a single-stream capture to predict the schedules' memory");
  RewriteOptions rewrite;
  rewrite.mark_ops = true;
  StatusOr<ScheduledModel> marked = RewriteForStreams(model_.model, model_.graph, plan_.single, rewrite);
  StatusOr<std::unique_ptr<AotGraph>> graph = marked.status();
  if (marked.ok()) {
    accelerate::CaptureOptions options;
    options.warmup_runs = 1;
    options.trace_allocations = true;
    graph = AotGraph::Capture(marked->model, options);
  }
  if (!graph.ok()) {
    progress_.Warning("recording the allocator's requests failed (" + graph.status().message() +
                      "); the schedules' memory is measured, not predicted");
    return;
  }
  AllocationTrace trace = (*graph)->stats().allocation_trace;
  if (!trace.complete) {
    progress_.Warning("the allocator's requests were not all recorded (or its history was being recorded already); "
                      "the schedules' memory is measured, not predicted");
    return;
  }
  single_trace_ = std::move(trace);
}

std::optional<analysis::PoolPrediction> Session::PredictPool(const StreamAssignment& schedule,
                                                            const std::vector<int64_t>& seeds) {
  if (!single_trace_) return std::nullopt;
  StatusOr<analysis::PoolPrediction> predicted = analysis::PredictGraphPool(*single_trace_, model_.graph, schedule, seeds);
  if (!predicted.ok()) {
    progress_.Warning("predicting memory: " + predicted.status().message());
    return std::nullopt;
  }
  return std::move(*predicted);
}

std::vector<int64_t> Session::SeedsFor(const StreamAssignment& schedule) {
  if (!args_.seed_pool || !single_trace_) return {};
  if (args_.cross_stream_reuse && schedule.num_streams > 1) return {};  // one stream: nothing to seed per stream
  StatusOr<analysis::PoolSeeds> seeds = analysis::ChoosePoolSeeds(*single_trace_, model_.graph, schedule);
  if (!seeds.ok()) {
    progress_.Warning("choosing pool seeds: " + seeds.status().message() + "; captured unseeded");
    return {};
  }
  return seeds->any() ? seeds->bytes : std::vector<int64_t>{};
}

void Session::SeedPool(ModeResult* mode, ScheduledModel* model, std::unique_ptr<AotGraph>* graph,
                       std::unique_ptr<AotGraph>* unseeded) {
  if (!args_.seed_pool || !single_trace_ || *graph == nullptr || !mode->captured || mode->branch_capture) return;
  // Under a budget the trials have decided, seeded or not (TryWithinBudget).
  if (mode->mode == RunMode::kAotMulti && result_.memory_budget_bytes > 0) return;
  const std::string name = mode->mode == RunMode::kAotMulti ? "multi-stream" : "single-stream";
  StatusOr<analysis::PoolSeeds> seeds = analysis::ChoosePoolSeeds(*single_trace_, model_.graph, mode->schedule);
  if (!seeds.ok()) {
    progress_.Warning("choosing pool seeds: " + seeds.status().message() + "; the " + name + " pool stays unseeded");
    return;
  }
  if (!seeds->any()) return;
  progress_.Step("seeding the " + name + " pool: predicted " + MiB(seeds->unseeded.segment_bytes) + " -> " +
                 MiB(seeds->seeded.segment_bytes) + ", capturing it again");
  ModeResult seeded = *mode;
  seeded.max_rel_error = 0;
  ScheduledModel scheduled;
  std::unique_ptr<AotGraph> seeded_graph;
  const Status captured = CaptureMode(mode->schedule, &seeded, &scheduled, &seeded_graph, seeds->bytes);
  if (!captured.ok()) {
    progress_.Warning("the seeded capture failed (" + captured.message() + "); the unseeded one is kept");
    return;
  }
  if (seeded.graph_pool_bytes >= mode->graph_pool_bytes) {
    progress_.Step("the seeded pool took " + MiB(seeded.graph_pool_bytes) + " against " + MiB(mode->graph_pool_bytes) +
                   " unseeded; the unseeded capture is kept");
    return;
  }
  seeded.unseeded_graph_pool_bytes = mode->graph_pool_bytes;
  seeded.pool_seed_bytes = seeds->bytes;
  *mode = std::move(seeded);
  *model = std::move(scheduled);
  *unseeded = std::move(*graph);  // timed beside the seeded one, then released
  *graph = std::move(seeded_graph);
}

}  // namespace nimble::workflow
