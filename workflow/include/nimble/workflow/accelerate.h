// The accelerate workflow behind `nimble-accelerate`: ahead-of-time scheduling of a TorchScript model
// end to end — front end, op times (from a nimble-prof run database, or timed op by op), the stream
// plan, the rewrite, capture of single- and multi-stream CUDA graphs, the output check against the
// unmodified model, timing beside the libtorch baseline, the calibrated prediction, the choice of
// mode, results stored in the run database and model.nimble written. One call per process at a time
// (it owns the GPU while it runs); built only with libtorch (nimble::workflow_models).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "nimble/analysis/memory_prediction.h"
#include "nimble/analysis/prediction.h"
#include "nimble/core/run.h"
#include "nimble/core/schedule.h"
#include "nimble/core/status.h"
#include "nimble/workflow/input_spec.h"
#include "nimble/workflow/progress.h"

namespace nimble::workflow {

enum class ModeChoice { kAuto, kSingle, kMulti };
enum class BranchHoldOrder { kSize, kWait };

// The carveout the multi-stream capture is also tried with (AccelerateOptions::smem_carveout): the most
// shared memory, so that SMs running kernels without any still take other kernels' blocks.
inline constexpr int32_t kMeasuredCarveout = 100;

struct AccelerateOptions {
  std::string model;
  std::vector<TensorSpec> inputs;
  // Several input shapes in one model.nimble: `inputs` with dimension 0 set to each of these (e.g. 1, 2,
  // 4, 8), or the buckets' inputs given whole (not both). Each bucket is scheduled, captured, checked,
  // timed and predicted on its own, with its own choice of mode; model.nimble holds one graph per
  // bucket, and its runners capture them into one shared memory pool. Empty: `inputs` alone.
  std::vector<int64_t> batch_sizes;
  std::vector<std::vector<TensorSpec>> buckets;
  std::string output;            // model.nimble
  std::string db;                // run database: op times from a nimble-prof run, and where results go
  int32_t iters = 200;           // timed iterations per mode (median)
  int32_t max_streams = 0;       // 0: as many as the assignment wants
  // GPU memory the multi-stream mode may take, peak reserved above the weights and inputs during its
  // warm-up and capture: an absolute budget in bytes, or a multiple of single-stream's measured peak
  // (both 0: no bound). The multi-stream schedule is folded onto fewer streams (halving) until its
  // capture fits, then onto the most streams that fit (bisection); when none fits, single-stream is
  // chosen and the reason said.
  int64_t memory_budget_bytes = 0;
  double memory_budget_ratio = 0;
  bool single_stream_only = false;
  // Hold every value that crossed streams until the streams join, as Nimble did before it freed them
  // after their last reader: for comparing memory only.
  bool keep_cross_stream_values = false;
  // Free values that crossed streams after each reader with record_stream (the caching allocator's
  // deferred reuse) instead of releasing them on their producer's stream once every reader is ordered
  // before (accelerate/stream_rewrite.h): for comparing memory only.
  bool record_cross_stream_values = false;
  // Capture Algorithm 1's streams as they are, one per chain, instead of packing chains that never
  // overlap onto one stream (analysis::PackStreams): for comparing memory only.
  bool unpacked_streams = false;
  // Leave the captures' memset nodes as captured instead of replacing the small ones with fill kernels
  // (accelerate's CaptureOptions::keep_memset_nodes): for comparison.
  bool keep_memset_nodes = false;
  // The shared-memory carveout asked for on the captures' kernel nodes that use no shared memory, in
  // percent, or -1 for each kernel's own (accelerate's CaptureOptions::smem_carveout). Unset: each
  // kernel's own, and the multi-stream capture instantiated a second time with kMeasuredCarveout, kept
  // where it replays more than 1 % faster (Session::KeepFasterCarveout).
  std::optional<int32_t> smem_carveout;
  // Capture each multi-stream schedule on one stream, its streams as branches of the graph, ops
  // interleaved as they would run (accelerate's CaptureOptions::branches, core/capture_order.h): the
  // graph's pool then reuses memory across streams, each reuse ordered after the free. Under a memory
  // budget, each stream count is tried on real streams first, then as branches.
  bool cross_stream_reuse = false;
  // Whether that budget tries real streams first: false for the buckets of one artifact, whose runner
  // captures every bucket as branches once one is (set by the bucket workflow).
  bool budget_tries_streams = true;
  // With cross_stream_reuse: each value is held until an op of its stream that starts this fraction of
  // the schedule's simulated run after its last reader ends (core/release_points.h
  // DelayedReleasePoints), so that its memory is reused later: more memory, fewer waits. 0: freed as soon
  // as the rewrite allows. With a memory budget and 0 here, the budget chooses: holds from every op's
  // values down to none (Session's branch hold ladder), the most held that fits.
  double branch_release_delay = 0;
  // With branch_release_delay: only ops whose outputs (as the single-stream capture's allocator trace
  // saw them) take at most this many bytes are held longer; 0: every op's.
  int64_t branch_hold_max_bytes = 0;
  // Which values the budget's holds keep as their rungs hold fewer: those that cost the fewest bytes
  // per microsecond of the wait a hold saves in a simulated branch capture (kWait: core/release_points.h
  // ReleaseWaits; below the first rung, which holds every value, values that save no wait are not
  // held), or the smallest outputs (kSize). kWait measured better on NASNet-A large
  // (bench/results/memory.md).
  BranchHoldOrder branch_hold_order = BranchHoldOrder::kWait;
  // Without a --db run of this model: record one here (nimble-prof's model profile, a few iterations, into
  // the --db database, else a temporary one) for the prediction's kernel durations; false: time each op alone instead (faster,
  // and measured 10-65% off on transformers and TF32 CNNs).
  bool record_kernels = true;
  // With --db: iterations of each captured replay (single- and multi-stream) recorded with the collector
  // after the timings, stored as the aot-single and aot-multi runs (their kernels on the streams the
  // driver ran them on, each with its graph node); the model's own recording, when this call makes one,
  // is kept in the same database as its eager run, so the three can be compared on one timeline.
  // 0: store results only.
  int32_t record_replays = 10;
  // Right after the single-stream capture, when a multi-stream one follows: a second single-stream
  // capture that records the caching allocator's requests (accelerate/aot_graph.h, trace_allocations)
  // to predict each captured or tried schedule's graph pool (analysis/memory_prediction.h). It turns
  // the allocator's history on for that capture only; when the process records that history already
  // (torch.cuda.memory._record_memory_history), it is left alone and memory is not predicted.
  bool predict_memory = true;
  // With the prediction: capture the multi-stream schedule once more with each stream's share of the
  // graph pool seeded by one segment of the size it needs (analysis::ChoosePoolSeeds; RewriteOptions::
  // pool_seeds), and keep that capture (it goes into model.nimble) when its measured pool is smaller;
  // both are timed. Off for several buckets, whose captures share one pool and serve each other.
  bool seed_pool = true;
  bool allow_eager_fallback = false;  // an uncapturable model is timed eagerly instead of failing
  bool cuda_fusions = false;     // the front end's cuDNN conv+relu fusions
  // A convolution's bias, residual add and activation in one kernel (accelerate::FrontEndOptions).
  bool conv_epilogues = true;
  bool tf32 = false;             // TF32 convolutions (PyTorch's default); off: IEEE fp32 everywhere
  // The convolutions' memory format: "auto" (channels_last for half-precision convolutions, none of
  // them depthwise; a model with half-precision depthwise convolutions is recorded in both layouts and
  // the layout whose kernels take less GPU time kept, Session::ChooseLayout), "contiguous" or
  // "channels_last" (accelerate::FrontEndOptions::memory_format), or "measure": any model with
  // convolutions recorded in both layouts, the faster kept.
  std::string memory_format = "auto";
  // How concurrent kernels share the GPU in the multi-stream prediction: a calibration file written by
  // `nimble-prof calibrate`; empty: the calibration built in for this device (analysis/gpu_sharing.h),
  // else occupancy shares as they are.
  std::string calibration;
  // A directory to write each captured CUDA graph into as Graphviz dot (accelerate::CaptureOptions::
  // dot_path): <mode>-<streams>-streams[-seeded].dot, one per capture, a later capture of the same name
  // replacing an earlier one; with several buckets, in a subdirectory bucket-K each. Made if missing
  // and checked writable before any GPU work; empty: none.
  std::string dump_graphs_dir;
  ModeChoice mode = ModeChoice::kAuto;
  std::string device = "cuda";
  std::string command_line;      // stored with the results
};

struct ModeResult {
  RunMode mode = RunMode::kAotSingle;  // kAotSingle or kAotMulti
  bool captured = false;
  StreamAssignment schedule;
  double median_ms = 0;
  // Simulated from the recorded kernels; the multi-stream mode's with them anchored on the measured
  // single-stream replay (AccelerateResult::duration_scale), its prediction from them as recorded in
  // predicted_unanchored_ms (-1: not anchored, predicted_ms is that).
  double predicted_ms = 0;
  double predicted_unanchored_ms = -1;
  double max_rel_error = 0;             // against the frozen graph the capture came from (the gate)
  double max_rel_error_unmodified = -1;  // against the model as the file holds it (-1: not compared)
  // Half precision: against the model as the file holds it computed in float32 (-1: not compared).
  double max_rel_error_float32 = -1;
  int64_t capture_ns = 0;
  // GPU memory of the warm-up and capture above the weights and inputs (accelerate/device_memory.h).
  int64_t peak_allocated_bytes = 0;
  int64_t peak_memory_bytes = 0;  // peak reserved
  int64_t graph_pool_bytes = 0;   // what the captured graph holds while it is kept
  // The same predicted before capturing, from the single-stream capture's allocator requests
  // (analysis/memory_prediction.h); -1 when no prediction was made.
  int64_t predicted_graph_pool_bytes = -1;
  // Where the predicted pool goes (empty without a prediction): each stream's segments and the most its
  // own blocks held at once, and the most all streams held at once (analysis::PoolPrediction).
  std::vector<analysis::CachingAllocatorModel::StreamUse> predicted_pool_streams;
  int64_t predicted_pool_peak_allocated_bytes = -1;
  // The pool seeded per stream (AccelerateOptions::seed_pool): the seed bytes per stream (empty: not
  // seeded), and the pool and replay time of the same schedule captured unseeded (-1: not seeded).
  std::vector<int64_t> pool_seed_bytes;
  int64_t unseeded_graph_pool_bytes = -1;
  double unseeded_median_ms = -1;
  // Captured with AccelerateOptions::cross_stream_reuse: whether the ops were interleaved (false: graph
  // order, where that was not safe), the allocations that reused memory another branch freed and the
  // graph dependencies added for them.
  bool branch_capture = false;
  bool branch_interleaved = false;
  int64_t reused_blocks = 0;
  int64_t hazard_edges = 0;
  // The capture's memset nodes replaced by fill kernels, and those left (CaptureStats).
  int32_t memset_nodes_replaced = 0;
  int32_t memset_nodes_kept = 0;
  int32_t smem_carveout = -1;   // the carveout asked for on its kernel nodes (-1: each kernel's own)
  int32_t carveout_nodes = 0;   // its kernel nodes without shared memory, those a carveout is asked for on
  // The multi-stream capture's other executable (Session::PrepareCarveoutAlternate): its carveout and
  // replay time (-1: not measured).
  int32_t carveout_alternate = -1;
  double carveout_alternate_ms = -1;
  int32_t delayed_values = 0;  // values held longer (AccelerateOptions::branch_release_delay)
  // The hold the branch capture used: a fraction of the simulated run, and the most bytes an op's
  // outputs take to be held (0: any); both 0: none. Chosen by the budget where the options leave it.
  double branch_release_delay = 0;
  int64_t branch_hold_max_bytes = 0;
  double branch_hold_max_bytes_per_us = 0;  // by the wait a hold saves (BranchHoldOrder::kWait); 0: any
};

// One multi-stream schedule tried against the memory budget.
struct MemoryTrial {
  int32_t streams = 0;
  int32_t syncs = 0;
  int64_t peak_allocated_bytes = 0;
  int64_t peak_reserved_bytes = 0;
  int64_t graph_pool_bytes = 0;
  int64_t predicted_graph_pool_bytes = -1;  // as ModeResult's, and the three below
  std::vector<analysis::CachingAllocatorModel::StreamUse> predicted_pool_streams;
  int64_t predicted_pool_peak_allocated_bytes = -1;
  std::vector<int64_t> pool_seed_bytes;  // the trial was captured with these seeds (empty: unseeded)
  bool branch_capture = false;           // and, as ModeResult's, its streams as branches with this hold
  double branch_release_delay = 0;
  int64_t branch_hold_max_bytes = 0;
  double branch_hold_max_bytes_per_us = 0;
  double predicted_ms = 0;  // the schedule's replay, simulated (after Predict)
  bool fits = false;
  StreamAssignment schedule;
};

struct AccelerateResult {
  std::string model, inputs, device, command;
  int32_t num_ops = 0, width_streams = 0, iterations = 0;
  bool channels_last = false;    // the front end made the convolutions channels_last
  // Where both layouts were recorded: each one's kernel time per iteration and the one kept
  // ("contiguous 6.264 ms, channels_last 3.936 ms of kernels per iteration: channels_last"); else empty.
  std::string layout_choice;
  int32_t conv_epilogues = 0;    // convolution tails run as one kernel each (--no-conv-epilogues: 0)
  int64_t reduced_edges = 0;
  int32_t matched_edges = 0;
  std::string op_time_source;    // where the workload came from: a recorded run, or op-by-op timing
  // What max_rel_error_unmodified compares with: the model as the file holds it, without the front
  // end's rewrites; empty where that could not be loaded.
  std::string output_reference;
  // Half precision: how far the model as the file holds it, at its dtype, is from itself computed in
  // float32 (-1: not measured). The rounding of the dtype itself, against which the replays'
  // max_rel_error_float32 is judged.
  double unmodified_error_float32 = -1;
  // The factor the recorded kernel durations were scaled by for the multi-stream prediction so that they
  // predict the measured single-stream replay (analysis::AnchorToSingleStream; 1: not anchored), and
  // what was done in words ("multi-stream predicted from the kernel durations x0.94 ..." or "... (not
  // anchored: why)"; empty without a multi-stream schedule).
  double duration_scale = 1;
  std::string anchor_text;
  analysis::PredictionOptions replay_costs;  // the launch and replay costs the prediction used
  // The precision that chose the device's built-in sharing model (ModelPrecision, accelerate_plan.h; also
  // set with --calibration FILE, whose model is used whatever precision it was fitted on).
  analysis::Precision precision = analysis::Precision::kUnknown;
  std::string replay_cost_source;            // recorded on the device, or estimates and why
                                             // (replay_costs.sharing.source says how the GPU is shared)
  double baseline_ms = 0;        // libtorch module.forward
  // GPU memory of module.forward above the weights and inputs: peak allocated, peak reserved.
  int64_t baseline_peak_allocated_bytes = 0;
  int64_t baseline_peak_reserved_bytes = 0;
  double predicted_eager_ms = 0;
  int64_t prep_ns = 0;           // assignment + rewrite + capture
  ModeResult single, multi;
  int64_t memory_budget_bytes = 0;        // the bound applied (0: none)
  std::vector<MemoryTrial> memory_trials;  // multi-stream schedules tried against it, in order
  std::string memory_choice;              // what the budget decided, for the table
  RunMode chosen = RunMode::kAotSingle;  // the mode written to model.nimble
  std::string choice_reason;
  // Set when the model could not be captured and options.allow_eager_fallback timed it eagerly
  // instead: the refusal; only baseline_ms is measured then, and nothing is stored or written.
  std::string eager_fallback_reason;
  std::vector<RunMode> stored_runs;  // modes stored in options.db
  std::vector<RunMode> recorded_runs;  // those of them stored with their recorded replays
  int64_t eager_run = -1;              // the run of the model this call recorded into options.db (-1: none)

  // Several buckets: each one's own result, in the order given (the fields above are the first's), and
  // model.nimble captured as its runners capture it, all into one shared pool (largest inputs first),
  // against the pools of each bucket's chosen mode captured on its own.
  std::vector<AccelerateResult> buckets;
  int64_t separate_pool_bytes = 0;   // the chosen modes' graph_pool_bytes, together
  int64_t shared_pool_bytes = 0;     // the one shared pool
  int64_t shared_capture_ns = 0;     // capturing every bucket into it (warm-up, capture, first replay)
  int32_t shared_weights = 0;        // weights of later buckets stored once (equal to an earlier bucket's)
  int64_t artifact_bytes = 0;        // model.nimble's size
};

// The single-stream replay the multi-stream prediction is to be compared with: the measured one where the
// multi-stream mode was predicted anchored on it (the anchored kernels predict it), else its prediction.
double SingleStreamReference(const AccelerateResult& result);

// Lines saying which assumption failed for each mode whose measurement is off its prediction by
// more than 15%; empty when all agree.
std::vector<std::string> Diagnose(const AccelerateResult& result);

// "launch 2.10 us, 1.05 us per kernel, +0.80 us per cross-stream dependency".
std::string ReplayCostsText(const analysis::PredictionOptions& costs);

StatusOr<AccelerateResult> Accelerate(const AccelerateOptions& options, const ProgressFn& progress = {});

}  // namespace nimble::workflow
