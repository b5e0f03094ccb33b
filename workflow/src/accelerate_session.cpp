// The accelerate workflow's steps. Preparation time counts what a deployment pays once per model: the
// assignment, the rewrite and the captures (not the front end or the op timing, which a run database
// replaces).
#include "accelerate_session.h"
#include "accelerate_anchor.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>
#include <filesystem>
#include <map>

#include <unistd.h>

#include "nimble/accelerate/artifact.h"
#include "nimble/accelerate/device_memory.h"
#include "nimble/analysis/memory_prediction.h"
#include "nimble/analysis/stream_plan.h"
#include "nimble/accelerate/model_timing.h"
#include "nimble/core/median.h"
#include "nimble/workflow/calibrate.h"
#include "nimble/workflow/format.h"
#include "nimble/workflow/profile_model.h"
#include "nimble/workflow/replay_costs.h"

namespace nimble::workflow {

using namespace ::nimble::accelerate;  // NOLINT: this file drives the accelerate module step by step
namespace {

constexpr double kMinMultiGain = 0.03;  // multi-stream must beat single-stream by this to be chosen
constexpr int32_t kRecordedIterations = 10;  // recorded for the prediction when no --db run matches
constexpr int32_t kTimingRounds = 4;        // Session::TimeGraphs

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

double MedianMs(std::vector<int64_t> ns) { return static_cast<double>(Median(std::move(ns))) / 1e6; }

std::string MiB(int64_t bytes) { return FormatMiB(bytes) + " MiB"; }

// "as branches", "as branches, every value held", "as branches, values of ops up to 1.0 MiB held",
// "as branches, values costing up to 670.1 KiB per us of wait held".
std::string BranchHoldText(double delay, int64_t max_bytes, double max_bytes_per_us) {
  if (delay <= 0) return "as branches";
  if (max_bytes_per_us > 0) {
    char text[96];
    std::snprintf(text, sizeof(text), "as branches, values costing up to %.1f KiB per us of wait held", max_bytes_per_us / 1024);
    return text;
  }
  return max_bytes > 0 ? "as branches, values of ops up to " + MiB(max_bytes) + " held" : "as branches, every value held";
}

}  // namespace

std::string Session::Precision() const { return args_.tf32 ? kFloat32PrecisionTf32 : kFloat32PrecisionIeee; }

Session::Session(const AccelerateOptions& args, std::unique_ptr<store::RunDatabase>* db, const ProgressFn& progress)
    : args_(args), db_(db), progress_(progress), specs_(args.inputs) {
  result_.model = args.model;
  result_.inputs = TensorSpecsText(specs_);
  result_.command = args.command_line;
  result_.iterations = args.iters;
  result_.single.mode = RunMode::kAotSingle;
  result_.multi.mode = RunMode::kAotMulti;
  use_branches_ = args.cross_stream_reuse;
  branch_hold_ = {args.branch_release_delay, args.branch_hold_max_bytes, 0};
}

Status Session::Load() {
  progress_.Step("loading " + args_.model + " on " + args_.device);
  NIMBLE_RETURN_IF_ERROR(SetFloat32Precision(Precision()));
  FrontEndOptions options;
  options.device = args_.device;
  options.cuda_fusions = args_.cuda_fusions;
  options.conv_epilogues = args_.conv_epilogues;
  options.tf32 = args_.tf32;
  measure_layout_ = args_.memory_format == "measure";
  const std::optional<MemoryFormat> format = ParseMemoryFormat(measure_layout_ ? "auto" : args_.memory_format);
  if (!format) {
    return InvalidArgument("memory format '" + args_.memory_format +
                           "': expected auto, contiguous, channels_last or measure");
  }
  options.memory_format = *format;
  front_end_ = options;
  NIMBLE_ASSIGN_OR_RETURN(model_, LoadModelGraph(args_.model, specs_, options));
  if (model_.channels_last) progress_.Step("convolutions in channels_last (--memory-format " + args_.memory_format + ")");
  if (model_.conv_epilogues > 0) {
    progress_.Step(std::to_string(model_.conv_epilogues) +
                   " convolutions' bias, residual add and activation in one kernel each (--no-conv-epilogues keeps them apart)");
  }
  if (!model_.blas.warning.empty()) progress_.Warning(model_.blas.warning);
  NIMBLE_ASSIGN_OR_RETURN(GpuLimits limits, DeviceLimits(args_.device));
  result_.device = limits.name;
  AdoptModel();
  return OkStatus();
}

StatusOr<double> Session::TimeBaseline(int32_t iters) {
  NIMBLE_ASSIGN_OR_RETURN(std::vector<int64_t> ns, TimeForward(model_.model, 20, iters));
  return MedianMs(std::move(ns));
}

StatusOr<MeasuredWorkload> Session::RecordWorkload(bool into_db) {
  namespace fs = std::filesystem;
  const std::string path =
      into_db ? args_.db
              : (fs::temp_directory_path() / ("nimble-accelerate-" + std::to_string(::getpid()) + ".db")).string();
  auto remove = [&] {
    // The user's file is never removed. A recording that fails there may leave a partial run of the
    // model behind (the writer appends to an existing file in place); Accelerate removes a file it made.
    if (into_db) return;
    std::error_code ignored;
    for (const char* suffix : {"", "-wal", "-shm", ".partial"}) fs::remove(path + suffix, ignored);
  };
  remove();
  ProfileOptions profile;
  profile.model = args_.model;
  profile.inputs = specs_;
  profile.output = path;
  profile.iters = kRecordedIterations;
  profile.warmup = 3;
  profile.timed_iters = 10;
  profile.device = args_.device;
  profile.cuda_fusions = args_.cuda_fusions;
  profile.conv_epilogues = args_.conv_epilogues;
  profile.tf32 = args_.tf32;
  // The recording must weigh the ops this session captures: the same layout, and so the same graph.
  profile.memory_format = model_.channels_last ? "channels_last" : "contiguous";
  profile.command_line = into_db ? "recorded by " + args_.command_line : "recorded by nimble-accelerate for its prediction";
  // The recording's own steps would interleave with this workflow's; its warnings still come through.
  ProgressFn warnings_only = [this](const ProgressUpdate& update) {
    if (update.kind == ProgressKind::kWarning) progress_.Warning("recording: " + std::string(update.message));
  };
  if (into_db) db_->reset();  // one connection writes the file at a time
  StatusOr<ProfileResult> profiled = ProfileModel(profile, warnings_only);
  if (into_db) {
    NIMBLE_ASSIGN_OR_RETURN(*db_, store::RunDatabase::Open(args_.db, store::Access::kReadWrite));
  }
  if (!profiled.ok()) {
    remove();
    return profiled.status();
  }
  std::unique_ptr<store::RunDatabase> temporary;
  if (!into_db) {
    StatusOr<std::unique_ptr<store::RunDatabase>> opened = store::RunDatabase::Open(path, store::Access::kRead);
    if (!opened.ok()) {
      remove();
      return opened.status();
    }
    temporary = std::move(*opened);
  }
  StatusOr<MeasuredWorkload> workload =
      WorkloadFromDatabase((into_db ? *db_ : temporary)->reader(), model_.graph, args_.tf32,
                           model_.channels_last);
  temporary.reset();
  remove();
  if (workload.ok()) {
    workload->source = "kernels recorded here with the collector (" + std::to_string(kRecordedIterations) +
                       " iterations; the median one)";
    if (into_db) {
      result_.eager_run = profiled->report.run.id.value();
      workload->source += ", stored as run " + std::to_string(result_.eager_run) + " of " + args_.db;
    }
  }
  return workload;
}

// The graph stored with the results carries each op's measured GPU time: the sum of its kernels.
analysis::Workload Session::UseMeasured(MeasuredWorkload measured) {
  result_.op_time_source = measured.source;
  for (size_t i = 0; i < model_.graph.ops.size(); ++i) {
    int64_t total = 0;
    for (const analysis::SimKernel& kernel : measured.workload.op_kernels[i]) total += kernel.dur_ns;
    model_.graph.ops[i].gpu_time_ns = total;
  }
  return std::move(measured.workload);
}

StatusOr<analysis::Workload> Session::LoadWorkload() {
  if (HasDatabase()) {
    StatusOr<MeasuredWorkload> stored =
        WorkloadFromDatabase((*db_)->reader(), model_.graph, args_.tf32, model_.channels_last);
    if (stored.ok()) return UseMeasured(std::move(*stored));
    progress_.Warning(stored.status().message() + (args_.record_kernels ? "; recording the model here instead"
                                                                        : "; timing ops in isolation instead"));
  }
  std::optional<MeasuredWorkload> trial = std::move(layout_workload_);
  layout_workload_.reset();
  if (trial && !HasDatabase()) return UseMeasured(std::move(*trial));  // ChooseLayout's, of the kept layout
  if (args_.record_kernels) {
    progress_.Step("recording the model's kernels for the prediction (" + std::to_string(kRecordedIterations) +
                   " iterations with the collector)");
    const bool had_database = HasDatabase();
    StatusOr<MeasuredWorkload> recorded = RecordWorkload(had_database);
    if (had_database && !HasDatabase()) return recorded.status();  // --db could not be opened again
    if (recorded.ok()) return UseMeasured(std::move(*recorded));
    progress_.Warning("recording the model failed (" + recorded.status().message() + "); timing ops in isolation instead");
  }
  NIMBLE_ASSIGN_OR_RETURN(std::vector<int64_t> times, TimeOpsInIsolation(model_, 3));
  for (size_t i = 0; i < times.size(); ++i) model_.graph.ops[i].gpu_time_ns = times[i];
  op_times_isolated_ = true;
  NIMBLE_ASSIGN_OR_RETURN(GpuLimits limits, DeviceLimits(args_.device));
  result_.op_time_source = args_.record_kernels ? "op times measured op by op in isolation (the recording failed)"
                                                : "op times measured op by op in isolation (--no-record)";
  return WorkloadFromOpTimes(model_.graph, int64_t{limits.sm_count} * limits.max_threads_per_sm);
}

Status Session::CaptureMode(const StreamAssignment& schedule, ModeResult* mode, ScheduledModel* scheduled,
                            std::unique_ptr<AotGraph>* graph, const std::vector<int64_t>& pool_seeds) {
  RewriteOptions rewrite;
  rewrite.pool_seeds = pool_seeds;
  rewrite.cross_stream_free = args_.keep_cross_stream_values     ? CrossStreamFree::kAtJoin
                              : args_.record_cross_stream_values ? CrossStreamFree::kAfterLastReader
                                                                 : CrossStreamFree::kOnProducerStream;
  const bool branches = use_branches_ && schedule.num_streams > 1;
  if (branches) BranchRewrite(schedule, &rewrite);
  NIMBLE_ASSIGN_OR_RETURN(*scheduled, RewriteForStreams(model_.model, model_.graph, schedule, rewrite));
  if (branches && !scheduled->summary.reordered) {
    progress_.Warning("the ops could not be interleaved for the branch capture (a node with side effects between "
                      "them, a random op, or a value the new order would use before it is made); captured in graph "
                      "order, which reuses more memory across streams and keeps less concurrency");
  }
  CaptureOptions capture;
  capture.branches = branches;
  capture.keep_memset_nodes = args_.keep_memset_nodes;
  capture.smem_carveout = args_.smem_carveout.value_or(capture.smem_carveout);
  const bool seeded = std::any_of(pool_seeds.begin(), pool_seeds.end(), [](int64_t b) { return b > 0; });
  // A branch capture's pool is one stream's, sized by its own requests (BranchSeeds).
  capture.trace_allocations = branches && args_.seed_pool && !seeded;
  if (!args_.dump_graphs_dir.empty()) {
    const std::string name = std::string(schedule.num_streams > 1 ? "aot-multi-" : "aot-single-") +
                             std::to_string(schedule.num_streams) + "-streams" + (seeded ? "-seeded" : "") + ".dot";
    capture.dot_path = (std::filesystem::path(args_.dump_graphs_dir) / name).string();
  }
  NIMBLE_ASSIGN_OR_RETURN(*graph, AotGraph::Capture(scheduled->model, capture));
  mode->schedule = schedule;
  mode->captured = true;
  const CaptureStats& stats = (*graph)->stats();
  mode->capture_ns = stats.capture_ns;
  mode->peak_allocated_bytes = stats.peak_allocated_bytes;
  mode->peak_memory_bytes = stats.peak_memory_bytes;
  mode->graph_pool_bytes = stats.graph_pool_bytes;
  mode->branch_capture = branches;
  mode->branch_interleaved = branches && scheduled->summary.reordered;
  mode->reused_blocks = stats.reused_blocks;
  mode->hazard_edges = stats.hazard_edges;
  mode->memset_nodes_replaced = stats.memset_nodes_replaced;
  mode->memset_nodes_kept = stats.memset_nodes_kept;
  mode->smem_carveout = capture.smem_carveout;
  mode->carveout_nodes = stats.carveout_nodes;
  mode->delayed_values = scheduled->summary.delayed_values;
  mode->branch_release_delay = branches ? branch_hold_.delay : 0;
  mode->branch_hold_max_bytes = branches && branch_hold_.delay > 0 ? branch_hold_.max_bytes : 0;
  mode->branch_hold_max_bytes_per_us = branches && branch_hold_.delay > 0 ? branch_hold_.max_bytes_per_us : 0;
  return OkStatus();
}

Status Session::PlanAndCapture() {
  progress_.Step("planning streams and capturing CUDA graphs");
  const int64_t prep_start = NowNs();
  // The assignment needs the graph alone; the kernels the prediction simulates come in Predict, after
  // the timings, so that recording them never runs beside a measurement.
  analysis::Workload placeholder;
  placeholder.op_kernels.resize(model_.graph.ops.size());
  NIMBLE_ASSIGN_OR_RETURN(plan_, MakePlan(model_.graph, std::move(placeholder), args_.max_streams, !args_.unpacked_streams));
  result_.width_streams = plan_.width_streams;
  result_.reduced_edges = static_cast<int64_t>(plan_.reduced_edges.size());
  result_.matched_edges = plan_.matched_edges;
  NIMBLE_RETURN_IF_ERROR(CaptureMode(plan_.single, &result_.single, &single_model_, &single_graph_));
  TraceAllocations();
  SeedPool(&result_.single, &single_model_, &single_graph_, &unseeded_single_graph_);
  int64_t budget = args_.memory_budget_bytes;
  if (args_.memory_budget_ratio > 0) {
    const auto relative = static_cast<int64_t>(args_.memory_budget_ratio * static_cast<double>(result_.single.peak_memory_bytes));
    budget = std::max<int64_t>(1, budget > 0 ? std::min(budget, relative) : relative);
  }
  result_.memory_budget_bytes = budget;
  if (!args_.single_stream_only && plan_.multi.num_streams > 1) {
    if (budget > 0) {
      NIMBLE_RETURN_IF_ERROR(CaptureWithinBudget(budget));
    } else {
      NIMBLE_RETURN_IF_ERROR(CaptureMode(plan_.multi, &result_.multi, &multi_model_, &multi_graph_));
    }
  }
  SeedPool(&result_.multi, &multi_model_, &multi_graph_, &unseeded_multi_graph_);
  PrepareCarveoutAlternate();
  result_.prep_ns = NowNs() - prep_start;
  return OkStatus();
}

// Captures `schedule`, records it as a memory trial and, when it fits `budget`, makes it the
// multi-stream mode. Out of GPU memory is over any budget; other failures are the model's.
StatusOr<bool> Session::TryWithinBudget(const StreamAssignment& schedule, int64_t budget) {
  // Seeded first (the pool a deployment keeps, as predicted); a seeded capture over the budget is tried
  // once more unseeded, since seeding is kept only where it measures smaller. A branch capture goes the
  // other way round: its seed comes from its own unseeded capture's requests (BranchSeeds), and the
  // seeded capture is kept where it fits and takes less.
  const bool branches = use_branches_ && schedule.num_streams > 1;
  std::vector<std::vector<int64_t>> attempts{SeedsFor(schedule), {}};
  if (branches) attempts = {{}};
  bool taken = false;
  for (size_t a = 0; a < attempts.size(); ++a) {
    const std::vector<int64_t> attempt = attempts[a];
    ModeResult trial_mode;
    trial_mode.mode = RunMode::kAotMulti;
    trial_mode.pool_seed_bytes = attempt;
    ScheduledModel scheduled;
    std::unique_ptr<AotGraph> graph;
    const Status captured = CaptureMode(schedule, &trial_mode, &scheduled, &graph, attempt);
    if (!captured.ok() && branches && !attempt.empty()) {  // the unseeded capture stands, as in SeedPool
      progress_.Warning("the seeded branch capture failed (" + captured.message() + "); the unseeded one stands");
      break;
    }
    if (!captured.ok() && captured.code() != StatusCode::kUnavailable) return captured;
    if (!captured.ok()) trial_mode.peak_memory_bytes = std::numeric_limits<int64_t>::max();
    MemoryTrial trial;
    trial.streams = schedule.num_streams;
    trial.syncs = static_cast<int32_t>(schedule.syncs.size());
    trial.peak_allocated_bytes = trial_mode.peak_allocated_bytes;
    trial.peak_reserved_bytes = trial_mode.peak_memory_bytes;
    trial.graph_pool_bytes = trial_mode.graph_pool_bytes;
    trial.pool_seed_bytes = trial_mode.pool_seed_bytes;
    trial.branch_capture = trial_mode.branch_capture;
    trial.branch_release_delay = trial_mode.branch_release_delay;
    trial.branch_hold_max_bytes = trial_mode.branch_hold_max_bytes;
    trial.branch_hold_max_bytes_per_us = trial_mode.branch_hold_max_bytes_per_us;
    trial.fits = captured.ok() && trial.peak_reserved_bytes <= budget;
    trial.schedule = schedule;
    result_.memory_trials.push_back(trial);
    progress_.Step("memory budget " + MiB(budget) + ": " + std::to_string(trial.streams) + " streams " +
                   (branches ? "(" + BranchHoldText(trial.branch_release_delay, trial.branch_hold_max_bytes, trial.branch_hold_max_bytes_per_us) + ") " : "") +
                   (attempt.empty() ? "" : "(pool seeded) ") +
                   (captured.ok() ? "take " + MiB(trial.peak_reserved_bytes) + (trial.fits ? ", within it" : ", over it")
                                  : "ran out of GPU memory (" + captured.message() + ")"));
    if (branches && attempt.empty() && graph != nullptr) {
      std::vector<int64_t> seeds = BranchSeeds(*graph, schedule.num_streams);
      if (!seeds.empty()) attempts.push_back(std::move(seeds));
    }
    if (trial.fits && (!taken || trial.peak_reserved_bytes < result_.multi.peak_memory_bytes)) {
      if (taken) multi_graph_.reset();  // the smaller seeded one replaces it (both are in the trials)
      result_.multi = trial_mode;
      multi_model_ = std::move(scheduled);
      multi_graph_ = std::move(graph);
      taken = true;
      if (!branches) return true;
    }
    if (!branches && attempt.empty()) break;
  }
  return taken;
}

// The search is SearchStreamCounts (accelerate_plan.h); each count's schedule is the plan's own for
// its stream count, else the packing onto that many.
Status Session::CaptureWithinBudget(int64_t budget) {
  std::map<int32_t, StreamAssignment> schedules{{plan_.multi.num_streams, plan_.multi}};
  auto streams_for = [&](int32_t most) {
    StreamAssignment schedule = analysis::PackStreams(plan_.uncapped, plan_.reduced_edges, most);
    const int32_t count = schedule.num_streams;
    schedules.emplace(count, std::move(schedule));
    return count;
  };
  // Each count tries its captures fastest first, the first that fits being that count's: real streams
  // (all of the schedule's concurrency; not for the buckets of one artifact, which its runner captures
  // all one way); with cross_stream_reuse then its branches, holding values from most to none (more
  // memory, more concurrency kept), the ladder made only once real streams missed.
  auto attempt = [&](int32_t count, bool branches, const BranchHold& hold) -> StatusOr<bool> {
    // A fit so far gives its pool back first, so that the trial is measured (and fits) on its own.
    multi_graph_.reset();
    use_branches_ = branches;
    branch_hold_ = hold;
    return TryWithinBudget(schedules.at(count), budget);
  };
  auto fits = [&](int32_t count) -> StatusOr<bool> {
    if (!args_.cross_stream_reuse || args_.budget_tries_streams) {
      NIMBLE_ASSIGN_OR_RETURN(const bool fit, attempt(count, false, {}));
      if (fit || !args_.cross_stream_reuse) return fit;
    }
    if (count < 2) return false;
    for (const BranchHold& hold : BranchHoldLadder(schedules.at(count))) {
      NIMBLE_ASSIGN_OR_RETURN(const bool fit, attempt(count, true, hold));
      if (fit) return true;
    }
    return false;
  };
  NIMBLE_ASSIGN_OR_RETURN(const int32_t best, SearchStreamCounts(plan_.multi.num_streams, streams_for, fits));
  // Later captures of the multi-stream mode (the recordings') are made as the chosen one was.
  if (best > 0) {
    use_branches_ = result_.multi.branch_capture;
    branch_hold_ = {result_.multi.branch_release_delay, result_.multi.branch_hold_max_bytes,
                    result_.multi.branch_hold_max_bytes_per_us};
  }
  if (best > 0 && multi_graph_ == nullptr) {  // a later trial was over: the best fit is captured again
    const StreamAssignment schedule = result_.multi.schedule;
    const std::vector<int64_t> seeds = result_.multi.pool_seed_bytes;
    return CaptureMode(schedule, &result_.multi, &multi_model_, &multi_graph_, seeds);
  }
  return OkStatus();
}

Status Session::Measure() {
  progress_.Step("timing libtorch and the captured graphs, " + std::to_string(args_.iters) + " iterations each");
  NIMBLE_ASSIGN_OR_RETURN(result_.baseline_ms, TimeBaseline(args_.iters));
  NIMBLE_ASSIGN_OR_RETURN(MemoryUse eager, ForwardMemory(model_.model));
  result_.baseline_peak_allocated_bytes = eager.peak_allocated_bytes;
  result_.baseline_peak_reserved_bytes = eager.peak_reserved_bytes;
  return TimeGraphs();
}

// Every captured graph (each mode, the unseeded capture a seeded one replaced, and the multi-stream
// capture's carveout alternate, swapped in for its turn) is timed in the same rounds, each round
// replaying each graph about iters / kTimingRounds times, in reversed order every other round: whatever
// changes the GPU's pace while the timings run affects every graph alike, so the modes are compared side
// by side rather than one after the other (bench/results/concurrency.md, "Timed side by side"). The
// unseeded captures and the slower carveout executable are released after.
Status Session::TimeGraphs() {
  struct Timed {
    AotGraph* graph;
    std::vector<int64_t> ns;
    bool alternate = false;  // the graph's carveout alternate, swapped in for its replays
  };
  std::vector<Timed> timed{{single_graph_.get(), {}}};
  if (unseeded_single_graph_ != nullptr) timed.push_back({unseeded_single_graph_.get(), {}});
  if (multi_graph_ != nullptr) timed.push_back({multi_graph_.get(), {}});
  if (unseeded_multi_graph_ != nullptr) timed.push_back({unseeded_multi_graph_.get(), {}});
  const bool alternate = multi_graph_ != nullptr && multi_graph_->has_carveout_alternate();
  if (alternate) timed.push_back({multi_graph_.get(), {}, true});
  for (int32_t round = 0; round < kTimingRounds; ++round) {
    // iters replays in all: the remainder goes to the first rounds (with iters < 4, one to each of the first)
    const int32_t replays = args_.iters / kTimingRounds + (round < args_.iters % kTimingRounds ? 1 : 0);
    if (replays == 0) break;
    for (size_t i = 0; i < timed.size(); ++i) {
      Timed& t = timed[round % 2 == 0 ? i : timed.size() - 1 - i];
      StatusOr<std::vector<int64_t>> ns = [&] {
        CarveoutSwapped swapped(*t.graph, t.alternate);
        return t.graph->TimeReplays(replays);
      }();
      if (!ns.ok()) return ns.status();
      t.ns.insert(t.ns.end(), ns->begin(), ns->end());
    }
  }
  auto median_of = [&](const AotGraph* graph, bool swapped = false) {
    for (Timed& t : timed) {
      if (t.graph == graph && t.alternate == swapped) return MedianMs(std::move(t.ns));
    }
    return -1.0;
  };
  result_.single.median_ms = median_of(single_graph_.get());
  if (unseeded_single_graph_ != nullptr) result_.single.unseeded_median_ms = median_of(unseeded_single_graph_.get());
  if (multi_graph_ != nullptr) result_.multi.median_ms = median_of(multi_graph_.get());
  if (unseeded_multi_graph_ != nullptr) result_.multi.unseeded_median_ms = median_of(unseeded_multi_graph_.get());
  if (alternate) KeepFasterCarveout(median_of(multi_graph_.get(), /*alternate=*/true));
  unseeded_single_graph_.reset();
  unseeded_multi_graph_.reset();
  return OkStatus();
}

// After the timings, so that the collector never runs while they are taken.
Status Session::Predict() {
  NIMBLE_ASSIGN_OR_RETURN(plan_.workload, LoadWorkload());
  progress_.Step("calibrating replay costs and predicting");
  analysis::PredictionOptions options;
  StatusOr<analysis::ReplayCosts> costs = MeasureReplayCosts(args_.device);
  if (costs.ok()) {
    UseReplayCosts(*costs, op_times_isolated_, &options, &result_);
  } else {
    result_.replay_cost_source = "estimates (" + costs.status().message() + ")";
  }
  result_.precision =
      ModelPrecision(model_.float32_weights, model_.half_weights, specs_, args_.tf32 && HasConvolution(model_.graph));
  if (args_.calibration.empty()) {
    options.sharing = analysis::SharingFor(result_.device, result_.precision);
  } else {
    NIMBLE_ASSIGN_OR_RETURN(options.sharing, LoadCalibration(args_.calibration));
  }
  result_.replay_costs = options;
  NIMBLE_RETURN_IF_ERROR(PredictPlan(&plan_, options));
  result_.predicted_eager_ms = static_cast<double>(plan_.prediction.eager_ns) / 1e6;
  result_.single.predicted_ms = static_cast<double>(plan_.prediction.aot_single_ns) / 1e6;
  result_.multi.predicted_ms = static_cast<double>(plan_.prediction.aot_multi_ns) / 1e6;
  // Since the single-stream replay was timed, the multi-stream predictions are anchored on it.
  return PredictMultiStreamAnchored(plan_.dag, plan_.workload, options, &result_);
}

namespace {

// "memory budget 168.0 MiB (1.5x single-stream's peak): 137 streams 1764.0 MiB (over), 68 streams ...;
// multi-stream runs on 8 streams: predicted 6.1 ms, peak 160.0 MiB".
std::string MemoryChoiceText(const AccelerateResult& r, double ratio) {
  if (r.memory_budget_bytes <= 0 || r.memory_trials.empty()) return "";  // no multi-stream schedule to bound
  char ratio_text[64] = "";
  if (ratio > 0) std::snprintf(ratio_text, sizeof(ratio_text), " (%.2gx single-stream's peak)", ratio);
  std::string text = "memory budget " + MiB(r.memory_budget_bytes) + ratio_text + ":";
  for (size_t i = 0; i < r.memory_trials.size(); ++i) {
    const MemoryTrial& t = r.memory_trials[i];
    char predicted[32];
    std::snprintf(predicted, sizeof(predicted), "%.3f", t.predicted_ms);
    const std::string pool = t.predicted_graph_pool_bytes < 0 ? std::string()
                             : ", graph pool " + MiB(t.graph_pool_bytes) + ", predicted " + MiB(t.predicted_graph_pool_bytes);
    const std::string hold = t.branch_capture ? " (" + BranchHoldText(t.branch_release_delay, t.branch_hold_max_bytes, t.branch_hold_max_bytes_per_us) + ")" : "";
    text += (i == 0 ? " " : "; ") + std::to_string(t.streams) + " streams" + hold + " take " + MiB(t.peak_reserved_bytes) +
            " (" + (t.fits ? "within" : "over") + ", predicted " + predicted + " ms" + pool + ")";
  }
  if (r.multi.captured) {
    text += "; multi-stream runs on " + std::to_string(r.multi.schedule.num_streams) + " streams";
  } else if (!r.memory_trials.empty()) {
    text += "; no multi-stream schedule fits, single-stream is chosen";
  }
  if (r.single.peak_memory_bytes > r.memory_budget_bytes) {
    text += " (single-stream itself takes " + MiB(r.single.peak_memory_bytes) + ", over the budget)";
  }
  return text;
}

}  // namespace

void Session::Choose() {
  result_.memory_choice = MemoryChoiceText(result_, args_.memory_budget_ratio);
  const double predicted_gain = 1.0 - result_.multi.predicted_ms / std::max(SingleStreamReference(result_), 1e-9);
  const double measured_gain = 1.0 - result_.multi.median_ms / std::max(result_.single.median_ms, 1e-9);
  result_.chosen = RunMode::kAotSingle;
  if (args_.mode == ModeChoice::kSingle) {
    result_.choice_reason = "--mode single";
  } else if (args_.mode == ModeChoice::kMulti && result_.multi.captured) {
    result_.chosen = RunMode::kAotMulti;
    result_.choice_reason = "--mode multi";
  } else if (!result_.multi.captured) {
    result_.choice_reason = args_.single_stream_only     ? "--single-stream-only"
                            : !result_.memory_trials.empty() ? "no multi-stream schedule fits the memory budget of " +
                                                                  MiB(result_.memory_budget_bytes) + " (the smallest, " +
                                                                  std::to_string(result_.memory_trials.back().streams) +
                                                                  " streams, takes " +
                                                                  MiB(result_.memory_trials.back().peak_reserved_bytes) + ")"
                                                            : "the assignment found no parallel ops (width 1)";
  } else if (measured_gain > kMinMultiGain) {
    result_.chosen = RunMode::kAotMulti;
    result_.choice_reason = "measured " + std::to_string(static_cast<int>(measured_gain * 100)) + "% faster than "
                            "single-stream (predicted " + std::to_string(static_cast<int>(predicted_gain * 100)) + "%)";
  } else {
    result_.choice_reason = "multi-stream is not faster than single-stream by more than 3% (measured " +
                            std::to_string(static_cast<int>(measured_gain * 100)) + "%, predicted " +
                            std::to_string(static_cast<int>(predicted_gain * 100)) + "%): falling back to one stream";
  }
}

Status Session::RecordReplays() {
  const int32_t n = args_.record_replays;
  if (n <= 0 || !HasDatabase()) return OkStatus();
  progress_.Step("recording " + std::to_string(n) + " replays of each captured mode with the collector");
  for (auto [graph, mode] : {std::pair{single_graph_.get(), RunMode::kAotSingle}, {multi_graph_.get(), RunMode::kAotMulti}}) {
    if (graph == nullptr) continue;
    StatusOr<ReplayRecording> recording = workflow::RecordReplays(*graph, mode, n);
    if (!recording.ok()) {  // the results are stored all the same, without records
      progress_.Warning("the " + std::string(RunModeName(mode)) + " replays were not recorded: " +
                        recording.status().message());
      continue;
    }
    recordings_.push_back(std::move(*recording));
  }
  return OkStatus();
}

}  // namespace nimble::workflow
