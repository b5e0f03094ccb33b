// Diagnosis and storage of the accelerate workflow's results.
#include <chrono>
#include <cmath>
#include <cstdio>

#include "accelerate_results.h"
#include "nimble/workflow/accelerate.h"
#include "nimble/store/run_writer.h"
#include "nimble/workflow/format.h"

namespace nimble::workflow {
namespace {

std::string Us(int64_t ns) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f", static_cast<double>(ns) / 1e3);
  return text;
}

bool OffPrediction(const ModeResult& mode) {
  return mode.captured && mode.predicted_ms > 0 && std::abs(mode.median_ms / mode.predicted_ms - 1.0) > 0.15;
}

std::vector<Metric> ModeMetrics(const AccelerateResult& result, const ModeResult& mode) {
  std::vector<Metric> metrics = {
      {"latency_median_ns", mode.median_ms * 1e6, "ns", -1},
      {"predicted_latency_ns", mode.predicted_ms * 1e6, "ns", -1},
      {"baseline_latency_ns", result.baseline_ms * 1e6, "ns", -1},
      {"max_rel_error", mode.max_rel_error, "ratio", -1},
      {"capture_ns", static_cast<double>(mode.capture_ns), "ns", -1},
      {"peak_allocated_bytes", static_cast<double>(mode.peak_allocated_bytes), "bytes", -1},
      {"peak_memory_bytes", static_cast<double>(mode.peak_memory_bytes), "bytes", -1},
      {"graph_pool_bytes", static_cast<double>(mode.graph_pool_bytes), "bytes", -1},
      {"baseline_peak_allocated_bytes", static_cast<double>(result.baseline_peak_allocated_bytes), "bytes", -1},
      {"baseline_peak_memory_bytes", static_cast<double>(result.baseline_peak_reserved_bytes), "bytes", -1},
      {"prep_ns", static_cast<double>(result.prep_ns), "ns", -1},
      {"replay_launch_ns", static_cast<double>(result.replay_costs.graph_launch_ns), "ns", -1},
      {"replay_kernel_gap_ns", static_cast<double>(result.replay_costs.graph_node_latency_ns), "ns", -1},
      {"replay_sync_latency_ns", static_cast<double>(result.replay_costs.sync_latency_ns), "ns", -1},
      {"replay_memset_nodes_ns", static_cast<double>(result.replay_costs.graph_extra_nodes_ns), "ns", -1},
      {"sharing_floor", result.replay_costs.sharing.floor, "ratio", -1},
      {"sharing_exponent", result.replay_costs.sharing.exponent, "ratio", -1},
      {"sharing_in_order", result.replay_costs.sharing.dispatch == analysis::Dispatch::kInOrder ? 1.0 : 0.0, "flag", -1},
      {"sharing_crowding", result.replay_costs.sharing.crowding, "ratio", -1},
      {"sharing_knee", result.replay_costs.sharing.knee, "ratio", -1},
      // analysis::Precision: 0 unknown, 1 float32, 2 half; `nimble-prof calibrate` reads it back.
      {"sharing_precision", static_cast<double>(result.precision), "enum", -1},
      {"stream_count", static_cast<double>(mode.schedule.num_streams), "count", -1},
      {"sync_count", static_cast<double>(mode.schedule.syncs.size()), "count", -1},
      {"chosen", result.chosen == mode.mode ? 1.0 : 0.0, "flag", -1},
  };
  if (mode.predicted_unanchored_ms >= 0) {
    metrics.push_back({"predicted_unanchored_latency_ns", mode.predicted_unanchored_ms * 1e6, "ns", -1});
    metrics.push_back({"duration_scale", result.duration_scale, "ratio", -1});
  }
  if (mode.max_rel_error_unmodified >= 0) {
    metrics.push_back({"max_rel_error_unmodified", mode.max_rel_error_unmodified, "ratio", -1});
  }
  if (mode.max_rel_error_float32 >= 0) {
    metrics.push_back({"max_rel_error_float32", mode.max_rel_error_float32, "ratio", -1});
    metrics.push_back({"unmodified_error_float32", result.unmodified_error_float32, "ratio", -1});
  }
  return metrics;
}

}  // namespace

double SingleStreamReference(const AccelerateResult& result) {
  return result.multi.predicted_unanchored_ms >= 0 ? result.single.median_ms : result.single.predicted_ms;
}

std::vector<std::string> Diagnose(const AccelerateResult& result) {
  std::vector<std::string> lines;
  if (OffPrediction(result.single)) {
    lines.push_back("aot-single measured " + FormatMs(result.single.median_ms) + " ms against " +
                    FormatMs(result.single.predicted_ms) + " ms predicted: the kernel durations (" + result.op_time_source +
                    ") or the replay costs (" + ReplayCostsText(result.replay_costs) + ", " +
                    result.replay_cost_source + ") do not hold for this model's replay");
  }
  if (OffPrediction(result.multi)) {
    // Anchored on the single-stream replay, the multi-stream prediction no longer carries its durations' error.
    const bool single_ok = !OffPrediction(result.single) || result.multi.predicted_unanchored_ms >= 0;
    const bool slower = result.multi.median_ms > result.multi.predicted_ms;
    lines.push_back("aot-multi measured " + FormatMs(result.multi.median_ms) + " ms against " +
                    FormatMs(result.multi.predicted_ms) + " ms predicted: " +
                    (single_ok ? std::string("concurrent kernels slowed each other ") + (slower ? "more" : "less") +
                                     " than their GPU shares say (the processor-sharing assumption), or the " +
                                     std::to_string(result.multi.schedule.syncs.size()) +
                                     " cross-stream dependencies cost " + (slower ? "more" : "less") +
                                     " than calibrated"
                               : std::string("the kernel durations behind both predictions are off (see aot-single)")));
  }
  return lines;
}

std::string ReplayCostsText(const analysis::PredictionOptions& costs) {
  const std::string memsets =
      costs.graph_extra_nodes_ns > 0 ? ", memset nodes " + Us(costs.graph_extra_nodes_ns) + " us per replay" : "";
  return "launch " + Us(costs.graph_launch_ns) + " us, " + Us(costs.graph_node_latency_ns) + " us per kernel, +" +
         Us(costs.sync_latency_ns) + " us per cross-stream dependency" + memsets;
}

namespace {

RunInfo ModeRun(const AccelerateResult& r, const ModeResult& mode, int32_t iterations) {
  const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch()).count();
  return RunInfo{RunId(), r.model, r.inputs, r.device, mode.mode, r.command, iterations, 0, now};
}

std::vector<Speedup> ModeSpeedups(const AccelerateResult& r, const ModeResult& mode) {
  return {
      {RunMode::kEager, r.baseline_ms, r.predicted_eager_ms, r.baseline_ms},
      {mode.mode, mode.median_ms, mode.predicted_ms, r.baseline_ms},
  };
}

// The recorded replays as a run: records, graph (no kernel attribution: a replayed kernel carries its
// graph node, not the op that launched it at capture), the captured schedule, metrics and speedups.
Status WriteRecordedRun(const std::string& path, AccelerateResult& r, const ModeResult& mode, const OpGraph& graph,
                        const ReplayRecording& recording) {
  NIMBLE_ASSIGN_OR_RETURN(auto writer, store::RunWriter::Create(path, ModeRun(r, mode, recording.iterations)));
  NIMBLE_RETURN_IF_ERROR(writer->AppendTrace(recording.trace));
  NIMBLE_RETURN_IF_ERROR(writer->WriteGraph(graph, {}));
  for (const StatEntry& e : recording.stats) NIMBLE_RETURN_IF_ERROR(writer->AddStat(e));
  std::vector<Metric> metrics = ModeMetrics(r, mode);
  metrics.push_back({"timed_iterations", static_cast<double>(r.iterations), "count", -1});
  NIMBLE_RETURN_IF_ERROR(writer->WriteMetrics(metrics));
  NIMBLE_RETURN_IF_ERROR(writer->WriteSpeedups(ModeSpeedups(r, mode)));
  NIMBLE_RETURN_IF_ERROR(writer->WriteAssignment(mode.schedule));
  return writer->Commit();
}

}  // namespace

Status StoreResults(std::unique_ptr<store::RunDatabase>& db, AccelerateResult& r, const OpGraph& graph,
                    const std::vector<ReplayRecording>& recordings) {
  auto recording_of = [&](RunMode mode) -> const ReplayRecording* {
    for (const ReplayRecording& recording : recordings) {
      if (recording.mode == mode) return &recording;
    }
    return nullptr;
  };
  for (const ModeResult* mode : {&r.single, &r.multi}) {
    if (!mode->captured || recording_of(mode->mode) != nullptr) continue;
    const std::vector<Metric> metrics = ModeMetrics(r, *mode);
    const std::vector<Speedup> speedups = ModeSpeedups(r, *mode);
    NIMBLE_RETURN_IF_ERROR(db->AddResultRun(ModeRun(r, *mode, r.iterations), graph, {metrics, speedups, &mode->schedule}).status());
    r.stored_runs.push_back(mode->mode);
  }
  const std::string path = db->path();
  bool closed = false;
  for (const ModeResult* mode : {&r.single, &r.multi}) {
    const ReplayRecording* recording = recording_of(mode->mode);
    if (!mode->captured || recording == nullptr) continue;
    if (!closed) {
      db.reset();
      closed = true;
    }
    NIMBLE_RETURN_IF_ERROR(WriteRecordedRun(path, r, *mode, graph, *recording)
                               .WithContext("storing the recorded " + std::string(RunModeName(mode->mode)) + " replays"));
    r.stored_runs.push_back(mode->mode);
    r.recorded_runs.push_back(mode->mode);
  }
  return OkStatus();
}

}  // namespace nimble::workflow
