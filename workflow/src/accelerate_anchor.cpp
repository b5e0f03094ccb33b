#include "accelerate_anchor.h"

#include <cmath>
#include <cstdio>
#include <string>

namespace nimble::workflow {

void UseReplayCosts(const analysis::ReplayCosts& costs, bool isolated_op_times, analysis::PredictionOptions* options,
                    AccelerateResult* result) {
  const ModeResult& m = result->single.captured ? result->single : result->multi;
  analysis::ApplyReplayCosts(costs, isolated_op_times ? 0 : m.memset_nodes_replaced,
                             isolated_op_times ? 0 : m.memset_nodes_kept, options);
  const std::string& untimed = costs.memset_costs_error;
  result->replay_cost_source = "recorded on this device (" + std::to_string(costs.replays) + " calibration replays" +
                               (untimed.empty() ? "" : "; memset nodes not timed: " + untimed) + ")";
}

Status PredictMultiStreamAnchored(const analysis::Dag& dag, const analysis::Workload& workload,
                                  const analysis::PredictionOptions& options, AccelerateResult* result) {
  if (!result->multi.captured && result->memory_trials.empty()) return OkStatus();
  // What tracing changed in the recorded durations shows in the single-stream replay, where no kernels
  // overlap, and is taken out before the kernels are made to share the GPU.
  StatusOr<analysis::AnchoredWorkload> anchored = FailedPrecondition("no single-stream replay measured");
  if (result->single.captured && result->single.median_ms > 0) {
    anchored = analysis::AnchorToSingleStream(dag, workload, options, std::llround(result->single.median_ms * 1e6));
  }
  const analysis::Workload& used = anchored.ok() ? anchored->workload : workload;
  if (anchored.ok()) {
    result->duration_scale = anchored->scale;
    char text[192];
    std::snprintf(text, sizeof(text),
                  "multi-stream predicted from the kernel durations x%.3f, which predict the measured "
                  "single-stream replay (%.3f ms; %.3f ms as recorded)",
                  anchored->scale, result->single.median_ms, result->single.predicted_ms);
    result->anchor_text = text;
  } else {
    result->duration_scale = 1;
    result->anchor_text = "multi-stream predicted from the kernel durations as recorded (not anchored: " +
                          anchored.status().message() + ")";
  }
  auto predict = [&](const analysis::Workload& w, const StreamAssignment& schedule) -> StatusOr<double> {
    NIMBLE_ASSIGN_OR_RETURN(int64_t ns, analysis::PredictMultiStream(dag, w, schedule, options));
    return static_cast<double>(ns) / 1e6;
  };
  for (MemoryTrial& trial : result->memory_trials) {
    NIMBLE_ASSIGN_OR_RETURN(trial.predicted_ms, predict(used, trial.schedule));
  }
  result->multi.predicted_unanchored_ms = -1;
  if (result->multi.captured) {  // the schedule captured: the plan's, or the memory trial that fitted
    NIMBLE_ASSIGN_OR_RETURN(result->multi.predicted_ms, predict(used, result->multi.schedule));
    if (anchored.ok()) {
      NIMBLE_ASSIGN_OR_RETURN(result->multi.predicted_unanchored_ms, predict(workload, result->multi.schedule));
    }
  }
  return OkStatus();
}

}  // namespace nimble::workflow
