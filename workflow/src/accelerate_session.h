// The state the accelerate workflow builds up step by step: the front end's model, the plan, the scheduled
// models and their captured graphs, and the result table. Each step returns a Status naming the
// model; a failed step leaves the session unusable. One session per process, one thread.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "accelerate_plan.h"
#include "accelerate_results.h"
#include "nimble/accelerate/aot_graph.h"
#include "nimble/accelerate/artifact_meta.h"
#include "nimble/accelerate/host_tensor.h"
#include "nimble/accelerate/model_graph.h"
#include "nimble/accelerate/stream_rewrite.h"
#include "nimble/core/allocation_trace.h"
#include "nimble/core/capture_order.h"
#include "nimble/store/run_database.h"
#include "nimble/workflow/accelerate.h"

namespace nimble::workflow {

using accelerate::AotGraph;
using accelerate::ModelGraph;
using accelerate::ScheduledModel;

// A graph's carveout alternate swapped in for a scope, whatever leaves it (AotGraph::
// SwapCarveoutAlternate); `swap` false: nothing.
class CarveoutSwapped {
 public:
  CarveoutSwapped(AotGraph& graph, bool swap) : graph_(swap ? &graph : nullptr) {
    if (graph_ != nullptr) graph_->SwapCarveoutAlternate();
  }
  ~CarveoutSwapped() {
    if (graph_ != nullptr) graph_->SwapCarveoutAlternate();
  }
  CarveoutSwapped(const CarveoutSwapped&) = delete;
  CarveoutSwapped& operator=(const CarveoutSwapped&) = delete;

 private:
  AotGraph* graph_;
};

class Session {
 public:
  // `db` holds the open --db database (null without one): op times are read from it, and the recording of
  // the model the prediction uses, when made here, goes into it (the database is closed around that
  // recording and opened again); ChooseLayout's trial recordings go to temporary files.
  Session(const AccelerateOptions& options, std::unique_ptr<store::RunDatabase>* db, const ProgressFn& progress);

  Status Load();                    // front end on the GPU, TF32 off
  // A model whose layout MemoryFormat::kAuto left open (ModelGraph::layout_open: half-precision
  // convolutions, some depthwise), or under --memory-format measure any model with convolutions: loaded
  // again in the other layout, its kernels recorded in each with the collector (which detaches from the
  // process after each recording, so the replays timed later run as fast as in a fresh process), and
  // the layout whose kernels take less GPU time per iteration kept; its recording then serves the
  // prediction when there is no --db. Without recording (--no-record), or when the second layout
  // fails, the first stays, with a warning; it never fails the session.
  Status ChooseLayout();
  StatusOr<double> TimeBaseline(int32_t iters);  // median ms of module.forward
  Status PlanAndCapture();          // assignment, rewrite, capture
  // The output check's second reference, before any capture holds GPU memory: the model as the file
  // holds it, loaded again without the front end's rewrites (batch norm folding, channels_last, the
  // GELU and the convolution epilogues) and run by libtorch on the check's 3 random inputs; the model is
  // released and its outputs kept on the host. A failure warns, and the check has the gate alone.
  void RunUnmodifiedModel();
  // For a model whose outputs are float16 or bfloat16: the same model computed in float32 (its weights
  // widened, the same input values), AccelerateResult::unmodified_error_float32 and the reference of
  // ModeResult::max_rel_error_float32. A failure warns, and the per-dtype tolerance judges alone.
  void RunWidenedModel(accelerate::FrontEndOptions options);
  // Both modes on the check's inputs against the frozen graph the captures came from, run by libtorch
  // (the gate: the stream rewrite and the capture must not change what it computes), and against
  // RunUnmodifiedModel's outputs (ModeResult::max_rel_error_unmodified, warned of above the dtype's
  // tolerance).
  Status CheckOutputs();
  Status Measure();                 // baseline, single, multi: median of args.iters each
  Status Predict();                 // the kernels (--db, else recorded here), replay costs, the simulation
  void Choose();                    // which mode model.nimble runs, and why
  void PredictMemory();             // graph pools of the captured and tried schedules, from the traced capture

  Status RecordReplays();           // options.record_replays replays of each captured mode, collector on
  Status Save();                    // model.nimble with its meta
  // What Save writes: the meta of the chosen mode, and its scheduled model.
  StatusOr<accelerate::ArtifactMeta> Meta() const;
  accelerate::LoadedModel ChosenModel() const;

  const ModelGraph& model() const { return model_; }
  const AccelerateResult& result() const { return result_; }
  const std::vector<ReplayRecording>& recordings() const { return recordings_; }

 private:
  // From --db, else ChooseLayout's recording of the kept layout, else recorded here, else timed op by op.
  StatusOr<analysis::Workload> LoadWorkload();
  // The model recorded with the collector: into the --db database when `into_db` (its eager run), else
  // into a temporary one.
  StatusOr<MeasuredWorkload> RecordWorkload(bool into_db);
  void AdoptModel();  // model_'s layout, epilogues and op count into the result
  analysis::Workload UseMeasured(MeasuredWorkload measured);  // its source and op times into the result
  bool HasDatabase() const { return db_ != nullptr && *db_ != nullptr; }
  std::string Precision() const;                 // kFloat32PrecisionIeee, or kFloat32PrecisionTf32 with --tf32
  // The capture asks AccelerateOptions::smem_carveout of its kernels without shared memory, where given.
  Status CaptureMode(const StreamAssignment& schedule, ModeResult* mode, ScheduledModel* scheduled,
                     std::unique_ptr<AotGraph>* graph, const std::vector<int64_t>& pool_seeds = {});
  // After the multi-stream capture and its seeding, unless AccelerateOptions::smem_carveout is given or
  // it has no kernel without shared memory: the same capture instantiated a second time with
  // kMeasuredCarveout on those kernels (AotGraph::PrepareCarveoutAlternate; accelerate_carveout.cpp),
  // which CheckOutputs checks and TimeGraphs times beside the first as the multi-stream mode's, then
  // hands to KeepFasterCarveout. A failure warns and leaves the first alone.
  void PrepareCarveoutAlternate();
  // The alternate becomes the executable the multi-stream mode replays where it measured more than
  // kMinCarveoutGain faster; either way the other is released and its carveout and time kept in
  // ModeResult::carveout_alternate(_ms).
  void KeepFasterCarveout(double alternate_ms);
  // `graph`'s outputs against both references (CheckOutputs); its errors go into `mode`.
  Status CheckGraph(AotGraph& graph, ModeResult* mode);
  // The multi-stream capture under the memory budget: plan_.multi, then folded onto half as many
  // streams each time until one fits, then the most streams between that fit and the fewest found over
  // the budget (kept as the multi mode); none fitting: no multi mode.
  Status CaptureWithinBudget(int64_t budget);
  // After the single-stream capture: a second single-stream capture, of a rewrite with op markers,
  // that records the allocator's requests op by op (single_trace_); on failure a warning, and memory
  // goes unpredicted.
  void TraceAllocations();
  // After a mode's capture: its schedule captured again with its pool seeded per stream
  // (analysis::ChoosePoolSeeds; a branch capture's one stream by BranchSeeds) where that is predicted smaller. It takes the first capture's place
  // (`mode`, `model`, `graph`) when its measured pool is smaller;
  // the first goes to `unseeded` until Measure has timed it beside the seeded one. Failures warn and
  // keep the first.
  void SeedPool(ModeResult* mode, ScheduledModel* model, std::unique_ptr<AotGraph>* graph,
                std::unique_ptr<AotGraph>* unseeded);
  Status TimeGraphs();  // every captured graph, in alternating rounds; see kTimingRounds
  void MakeCheckInputs();  // check_inputs_, once
  std::vector<std::vector<accelerate::HostTensor>> check_inputs_, check_frozen_reference_, check_file_reference_,
      check_float32_reference_;
  // The seeds analysis::ChoosePoolSeeds finds for `schedule` (empty: none, or no trace). The budget's
  // trials are captured seeded, so that a schedule fits by its seeded pool.
  std::vector<int64_t> SeedsFor(const StreamAssignment& schedule);
  // A branch capture's seeds (its first stream's, the capture stream), chosen by replaying `graph`'s
  // own recorded requests (analysis::ChooseOneStreamSeed); empty where it recorded none or no seed
  // saves memory.
  std::vector<int64_t> BranchSeeds(const accelerate::AotGraph& graph, int32_t streams);
  // The graph pool a capture of `schedule` would reserve (with `seeds`, analysis::PredictGraphPool's),
  // from single_trace_; none without a trace.
  std::optional<analysis::PoolPrediction> PredictPool(const StreamAssignment& schedule,
                                                      const std::vector<int64_t>& seeds = {});
  StatusOr<bool> TryWithinBudget(const StreamAssignment& schedule, int64_t budget);

  const AccelerateOptions& args_;
  std::unique_ptr<store::RunDatabase>* db_;
  Progress progress_;
  std::vector<TensorSpec> specs_;
  ModelGraph model_;
  accelerate::FrontEndOptions front_end_;          // as Load gave them
  bool measure_layout_ = false;                    // --memory-format measure: every model with convolutions
  std::optional<MeasuredWorkload> layout_workload_;  // ChooseLayout's recording of the layout it kept
  bool op_times_isolated_ = false;  // the workload came from ops timed one by one (LoadWorkload)
  Plan plan_;
  ScheduledModel single_model_, multi_model_;
  std::unique_ptr<AotGraph> single_graph_, multi_graph_, unseeded_single_graph_, unseeded_multi_graph_;
  AccelerateResult result_;
  std::vector<ReplayRecording> recordings_;
  std::optional<AllocationTrace> single_trace_;
  std::vector<int64_t> branch_op_ns_;  // op times alone, for the branch capture's order (empty: not timed)
  bool branch_op_timing_failed_ = false;
  // How long a branch capture holds values (AccelerateOptions::branch_release_delay and
  // branch_hold_max_bytes): the options', or the budget's choice among BranchHoldLadder.
  struct BranchHold {
    double delay = 0;
    int64_t max_bytes = 0;
    double max_bytes_per_us = 0;  // by HoldCosts (AccelerateOptions::branch_hold_order kWait); 0: any
  };
  BranchHold branch_hold_;
  // Whether a multi-stream capture is a branch capture: the options' cross_stream_reuse, or the budget's
  // choice between real streams and branches.
  bool use_branches_ = false;
  // The holds a memory budget tries for `schedule`, most memory first: with the options' delay, that
  // hold alone; without, every op's values held, then those of the ops whose key is at most the 90th,
  // 80th, ..., 10th percentile of the keys (by branch_hold_order: the output bytes from single_trace_,
  // or HoldCosts, whose 100th to 91st percentiles come first), then none.
  std::vector<BranchHold> BranchHoldLadder(const StreamAssignment& schedule);
  // Per op, the bytes its outputs take per microsecond of wait that holding them saves in a branch
  // capture of `schedule` in `order`, as `run` simulates it (ReleaseWaits); -1 where either is 0 or unknown.
  std::vector<double> HoldCosts(const StreamAssignment& schedule, const std::vector<int32_t>& order,
                                const BranchCaptureTimes& run) const;
  void TimeBranchOps();  // branch_op_ns_, once
  // A branch capture's rewrite options (AccelerateOptions::cross_stream_reuse): the ops in the order
  // they would start with their times alone, and values held longer (branch_hold_).
  void BranchRewrite(const StreamAssignment& schedule, accelerate::RewriteOptions* rewrite);
  // Per op, the bytes of what it hands on to later ops, from single_trace_ (empty without one).
  std::vector<int64_t> OpOutputBytes() const;
};

}  // namespace nimble::workflow
