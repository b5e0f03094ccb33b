// The accelerate session's memory steps: the allocator trace of a single-stream capture, the graph
// pools predicted from it (analysis/memory_prediction.h), and the pools seeded per stream.
#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "accelerate_session.h"
#include "nimble/accelerate/model_timing.h"
#include "nimble/analysis/memory_prediction.h"
#include "nimble/core/capture_order.h"
#include "nimble/core/release_points.h"
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
    if (!trial.branch_capture) fill(trial.schedule, &trial, trial.pool_seed_bytes);
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
    options.keep_memset_nodes = args_.keep_memset_nodes;
    options.smem_carveout = args_.smem_carveout.value_or(options.smem_carveout);
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
  if (use_branches_ && schedule.num_streams > 1) return {};  // one stream: seeded by BranchSeeds
  StatusOr<analysis::PoolSeeds> seeds = analysis::ChoosePoolSeeds(*single_trace_, model_.graph, schedule);
  if (!seeds.ok()) {
    progress_.Warning("choosing pool seeds: " + seeds.status().message() + "; captured unseeded");
    return {};
  }
  return seeds->any() ? seeds->bytes : std::vector<int64_t>{};
}

std::vector<int64_t> Session::BranchSeeds(const AotGraph& graph, int32_t streams) {
  const AllocationTrace& trace = graph.stats().allocation_trace;
  if (!trace.complete) return {};
  StatusOr<analysis::OneStreamSeed> seed = analysis::ChooseOneStreamSeed(trace);
  if (!seed.ok()) {
    progress_.Warning("choosing the branch capture's pool seed: " + seed.status().message() + "; captured unseeded");
    return {};
  }
  if (seed->bytes == 0) return {};
  progress_.Step("seeding the branch capture's pool: its requests replayed take " + MiB(seed->unseeded.segment_bytes) +
                 " unseeded, " + MiB(seed->seeded.segment_bytes) + " with a " + MiB(seed->bytes) + " seed");
  std::vector<int64_t> seeds(static_cast<size_t>(std::max(streams, 1)), 0);
  seeds[0] = seed->bytes;
  return seeds;
}

void Session::SeedPool(ModeResult* mode, ScheduledModel* model, std::unique_ptr<AotGraph>* graph,
                       std::unique_ptr<AotGraph>* unseeded) {
  if (!args_.seed_pool || *graph == nullptr || !mode->captured) return;
  // Under a budget the trials have decided, seeded or not (TryWithinBudget).
  if (mode->mode == RunMode::kAotMulti && result_.memory_budget_bytes > 0) return;
  const std::string name = mode->mode == RunMode::kAotMulti ? "multi-stream" : "single-stream";
  std::vector<int64_t> seed_bytes;
  if (mode->branch_capture) {
    seed_bytes = BranchSeeds(**graph, mode->schedule.num_streams);
  } else {
    if (!single_trace_) return;
    StatusOr<analysis::PoolSeeds> seeds = analysis::ChoosePoolSeeds(*single_trace_, model_.graph, mode->schedule);
    if (!seeds.ok()) {
      progress_.Warning("choosing pool seeds: " + seeds.status().message() + "; the " + name + " pool stays unseeded");
      return;
    }
    if (!seeds->any()) return;
    progress_.Step("seeding the " + name + " pool: predicted " + MiB(seeds->unseeded.segment_bytes) + " -> " +
                   MiB(seeds->seeded.segment_bytes) + ", capturing it again");
    seed_bytes = seeds->bytes;
  }
  if (seed_bytes.empty()) return;
  ModeResult seeded = *mode;
  seeded.max_rel_error = 0;
  ScheduledModel scheduled;
  std::unique_ptr<AotGraph> seeded_graph;
  const Status captured = CaptureMode(mode->schedule, &seeded, &scheduled, &seeded_graph, seed_bytes);
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
  seeded.pool_seed_bytes = seed_bytes;
  *mode = std::move(seeded);
  *model = std::move(scheduled);
  *unseeded = std::move(*graph);  // timed beside the seeded one, then released
  *graph = std::move(seeded_graph);
}

void Session::TimeBranchOps() {
  if (!branch_op_ns_.empty() || branch_op_timing_failed_) return;
  StatusOr<std::vector<int64_t>> times = TimeOpsInIsolation(model_, 3);
  if (times.ok()) {
    branch_op_ns_ = std::move(*times);
  } else {
    branch_op_timing_failed_ = true;
    progress_.Warning("timing ops for the branch capture's order failed (" + times.status().message() +
                      "); every op counts the same");
  }
}

std::vector<double> Session::HoldCosts(const StreamAssignment& schedule, const std::vector<int32_t>& order,
                                       const BranchCaptureTimes& run) const {
  const std::vector<int64_t> bytes = OpOutputBytes();
  const std::vector<int64_t> waits = ReleaseWaits(model_.graph, schedule, order, run.start_ns, run.end_ns);
  std::vector<double> costs(model_.graph.ops.size(), -1);
  for (size_t op = 0; op < costs.size() && op < bytes.size(); ++op) {
    if (bytes[op] > 0 && waits[op] > 0) costs[op] = static_cast<double>(bytes[op]) * 1e3 / static_cast<double>(waits[op]);
  }
  return costs;
}

void Session::BranchRewrite(const StreamAssignment& schedule, RewriteOptions* rewrite_options) {
  RewriteOptions& rewrite = *rewrite_options;
  // Ops ordered by when they would start with the times they take alone, so that the allocator's
  // reuse across branches mostly follows frees that have happened by then in the replay.
  TimeBranchOps();
  rewrite.op_order = BranchCaptureOrder(model_.graph, schedule, branch_op_ns_);
  if (branch_hold_.delay > 0) {
    const BranchCaptureTimes run = BranchCaptureRun(model_.graph, schedule, branch_op_ns_);
    const int64_t makespan = run.end_ns.empty() ? 0 : *std::max_element(run.end_ns.begin(), run.end_ns.end());
    const auto delay = static_cast<int64_t>(branch_hold_.delay * static_cast<double>(makespan));
    rewrite.delayed_releases = DelayedReleasePoints(model_.graph, schedule, run.start_ns, run.end_ns, delay);
    if (branch_hold_.max_bytes > 0) {
      const std::vector<int64_t> bytes = OpOutputBytes();
      for (size_t op = 0; op < rewrite.delayed_releases.size(); ++op) {
        // Unknown (no trace): not held, since holding costs memory.
        if (op >= bytes.size() || bytes[op] < 0 || bytes[op] > branch_hold_.max_bytes) rewrite.delayed_releases[op] = -1;
      }
    }
    if (branch_hold_.max_bytes_per_us > 0) {
      const std::vector<double> costs = HoldCosts(schedule, rewrite.op_order, run);
      for (size_t op = 0; op < rewrite.delayed_releases.size(); ++op) {
        // No cost (no wait to save, or unknown bytes): not held.
        if (op >= costs.size() || costs[op] < 0 || costs[op] > branch_hold_.max_bytes_per_us) rewrite.delayed_releases[op] = -1;
      }
    }
  }
}

// The delay every rung holds with: the smallest fraction measured (0.002 of the run, on NASNet-A
// large) kept as much of the gain as longer ones (0.005 to 0.1) for less memory; what the rungs vary is
// which values are held.
constexpr double kLadderDelay = 0.002;

std::vector<Session::BranchHold> Session::BranchHoldLadder(const StreamAssignment& schedule) {
  if (args_.branch_release_delay > 0) return {{args_.branch_release_delay, args_.branch_hold_max_bytes, 0}};
  std::vector<BranchHold> ladder{{kLadderDelay, 0, 0}};
  // Thresholds at percentiles of the ops' keys, each rung holding fewer values than the one before: by
  // size the 90th, 80th, ..., 10th; by wait the 100th, 99th, ..., 91st first, since the keys' top tenth
  // spans most of the memory (on NASNet-A large, 12 MiB of peak between the 100th and the 90th).
  const bool by_wait = args_.branch_hold_order == BranchHoldOrder::kWait;
  std::vector<int> percentiles;
  if (by_wait) {
    for (int p = 100; p > 90; --p) percentiles.push_back(p);
  }
  for (int p = 90; p >= 10; p -= 10) percentiles.push_back(p);
  std::vector<double> keys;
  if (by_wait) {
    TimeBranchOps();
    keys = HoldCosts(schedule, BranchCaptureOrder(model_.graph, schedule, branch_op_ns_),
                     BranchCaptureRun(model_.graph, schedule, branch_op_ns_));
  } else {
    for (const int64_t b : OpOutputBytes()) keys.push_back(static_cast<double>(b));
  }
  keys.erase(std::remove_if(keys.begin(), keys.end(), [](double k) { return k <= 0; }), keys.end());
  std::sort(keys.begin(), keys.end());
  double last = 0;
  for (const int percentile : percentiles) {
    if (keys.empty()) break;
    const double most = keys[static_cast<size_t>(percentile * static_cast<double>(keys.size() - 1) / 100)];
    if (last > 0 && most >= last) continue;
    last = most;
    ladder.push_back(by_wait ? BranchHold{kLadderDelay, 0, most} : BranchHold{kLadderDelay, static_cast<int64_t>(most), 0});
  }
  ladder.push_back({0, 0, 0});
  return ladder;
}

std::vector<int64_t> Session::OpOutputBytes() const {
  if (!single_trace_) return {};
  std::vector<int64_t> bytes(model_.graph.ops.size(), 0);
  std::map<int64_t, std::pair<int32_t, int64_t>> live;  // block -> (op that allocated it, bytes)
  for (const AllocationEvent& event : single_trace_->events) {
    if (event.kind == AllocationEvent::Kind::kAlloc) {
      live[event.block] = {event.op, event.bytes};
      continue;
    }
    const auto it = live.find(event.block);
    if (it == live.end()) continue;
    const auto [op, size] = it->second;
    // Freed by a later op than the one that made it: a value that op handed on.
    if (op >= 0 && event.op != op && static_cast<size_t>(op) < bytes.size()) bytes[static_cast<size_t>(op)] += size;
    live.erase(it);
  }
  for (const auto& [block, made] : live) {  // never freed in the run: outputs of the graph
    if (made.first >= 0 && static_cast<size_t>(made.first) < bytes.size()) bytes[static_cast<size_t>(made.first)] += made.second;
  }
  return bytes;
}

}  // namespace nimble::workflow
