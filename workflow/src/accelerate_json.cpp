#include "nimble/workflow/accelerate_json.h"

#include <cmath>
#include <string>

#include "nimble/workflow/report_json.h"

namespace nimble::workflow {
namespace {

using nlohmann::json;

json PoolStreamsJson(const std::vector<analysis::CachingAllocatorModel::StreamUse>& streams) {
  json out = json::array();
  for (const auto& s : streams) out.push_back({{"segment_bytes", s.segment_bytes}, {"peak_allocated_bytes", s.peak_allocated_bytes}});
  return out;
}

// null where the model as the file holds it (or, for the float32 figures, its float32 computation) was not
// compared; "inf" where the outputs were not finite.
json UnmodifiedErrorJson(double error) {
  if (error < 0) return nullptr;
  if (!std::isfinite(error)) return "inf";
  return error;
}

json ModeJson(const ModeResult& m) {
  if (!m.captured) return nullptr;
  return {{"mode", std::string(RunModeName(m.mode))},
          {"measured_ms", m.median_ms},
          {"predicted_ms", m.predicted_ms},
          {"predicted_unanchored_ms", m.predicted_unanchored_ms >= 0 ? json(m.predicted_unanchored_ms) : json(nullptr)},
          {"max_rel_error", m.max_rel_error},
          {"max_rel_error_unmodified", UnmodifiedErrorJson(m.max_rel_error_unmodified)},
          {"max_rel_error_float32", UnmodifiedErrorJson(m.max_rel_error_float32)},
          {"capture_ns", m.capture_ns},
          {"peak_allocated_bytes", m.peak_allocated_bytes},
          {"peak_memory_bytes", m.peak_memory_bytes},
          {"graph_pool_bytes", m.graph_pool_bytes},
          {"predicted_graph_pool_bytes", m.predicted_graph_pool_bytes},
          {"predicted_pool_peak_allocated_bytes", m.predicted_pool_peak_allocated_bytes},
          {"predicted_pool_streams", PoolStreamsJson(m.predicted_pool_streams)},
          {"pool_seed_bytes", m.pool_seed_bytes},
          {"unseeded_graph_pool_bytes", m.unseeded_graph_pool_bytes},
          {"unseeded_measured_ms", m.unseeded_median_ms},
          {"branch_capture", m.branch_capture},
          {"branch_interleaved", m.branch_interleaved},
          {"reused_blocks", m.reused_blocks},
          {"hazard_edges", m.hazard_edges},
          {"memset_nodes_replaced", m.memset_nodes_replaced},
          {"memset_nodes_kept", m.memset_nodes_kept},
          {"smem_carveout", m.smem_carveout},
          {"carveout_nodes", m.carveout_nodes},
          {"carveout_alternate", m.carveout_alternate},
          {"carveout_alternate_ms", m.carveout_alternate_ms},
          {"delayed_values", m.delayed_values},
          {"branch_release_delay", m.branch_release_delay},
          {"branch_hold_max_bytes", m.branch_hold_max_bytes},
          {"branch_hold_max_bytes_per_us", m.branch_hold_max_bytes_per_us},
          {"streams", m.schedule.num_streams},
          {"syncs", static_cast<int64_t>(m.schedule.syncs.size())},
          {"assignment", AssignmentToJson(m.schedule)}};
}

json TrialsJson(const std::vector<MemoryTrial>& trials) {
  json out = json::array();
  for (const MemoryTrial& t : trials) {
    out.push_back({{"streams", t.streams},
                   {"syncs", t.syncs},
                   {"peak_allocated_bytes", t.peak_allocated_bytes},
                   {"peak_memory_bytes", t.peak_reserved_bytes},
                   {"graph_pool_bytes", t.graph_pool_bytes},
                   {"predicted_graph_pool_bytes", t.predicted_graph_pool_bytes},
                   {"predicted_pool_peak_allocated_bytes", t.predicted_pool_peak_allocated_bytes},
                   {"predicted_pool_streams", PoolStreamsJson(t.predicted_pool_streams)},
                   {"pool_seed_bytes", t.pool_seed_bytes},
                   {"branch_capture", t.branch_capture},
                   {"branch_release_delay", t.branch_release_delay},
                   {"branch_hold_max_bytes", t.branch_hold_max_bytes},
                   {"branch_hold_max_bytes_per_us", t.branch_hold_max_bytes_per_us},
                   {"predicted_ms", t.predicted_ms},
                   {"fits", t.fits}});
  }
  return out;
}

json CostsJson(const analysis::PredictionOptions& c) {
  return {{"graph_launch_ns", c.graph_launch_ns},
          {"graph_node_latency_ns", c.graph_node_latency_ns},
          {"sync_latency_ns", c.sync_latency_ns},
          {"memset_nodes_ns", c.graph_extra_nodes_ns},
          {"sharing", {{"floor", c.sharing.floor},
                       {"exponent", c.sharing.exponent},
                       {"dispatch", std::string(analysis::DispatchName(c.sharing.dispatch))},
                       {"crowding", c.sharing.crowding},
                       {"knee", c.sharing.knee},
                       {"source", c.sharing.source}}},
          {"text", ReplayCostsText(c)}};
}

}  // namespace

json AccelerateResultToJson(const AccelerateResult& r) {
  json stored = json::array();
  for (RunMode mode : r.stored_runs) stored.push_back(std::string(RunModeName(mode)));
  json recorded = json::array();
  for (RunMode mode : r.recorded_runs) recorded.push_back(std::string(RunModeName(mode)));
  json j = {{"model", r.model},
            {"inputs", r.inputs},
            {"device", r.device},
            {"command", r.command},
            {"ops", r.num_ops},
            {"memory_format", r.channels_last ? "channels_last" : "contiguous"},
            {"memory_format_choice", r.layout_choice},
            {"conv_epilogues", r.conv_epilogues},
            {"width_streams", r.width_streams},
            {"reduced_edges", r.reduced_edges},
            {"matched_edges", r.matched_edges},
            {"iterations", r.iterations},
            {"op_time_source", r.op_time_source},
            {"output_reference", r.output_reference},
            {"unmodified_error_float32", UnmodifiedErrorJson(r.unmodified_error_float32)},
            {"replay_costs", CostsJson(r.replay_costs)},
            {"precision", std::string(analysis::PrecisionName(r.precision))},
            {"replay_cost_source", r.replay_cost_source},
            {"duration_scale", r.duration_scale},
            {"anchor", r.anchor_text},
            {"baseline_ms", r.baseline_ms},
            {"predicted_eager_ms", r.predicted_eager_ms},
            {"baseline_peak_allocated_bytes", r.baseline_peak_allocated_bytes},
            {"baseline_peak_memory_bytes", r.baseline_peak_reserved_bytes},
            {"prep_ns", r.prep_ns},
            {"single", ModeJson(r.single)},
            {"multi", ModeJson(r.multi)},
            {"stored_runs", stored},
            {"recorded_runs", recorded},
            {"eager_run", r.eager_run >= 0 ? json(r.eager_run) : json(nullptr)},
            {"memory_budget_bytes", r.memory_budget_bytes},
            {"memory_trials", TrialsJson(r.memory_trials)},
            {"memory_choice", r.memory_choice},
            {"diagnosis", Diagnose(r)}};
  if (r.eager_fallback_reason.empty()) {
    j["chosen"] = std::string(RunModeName(r.chosen));
    j["choice_reason"] = r.choice_reason;
    j["eager_fallback_reason"] = nullptr;
  } else {
    j["chosen"] = nullptr;
    j["choice_reason"] = nullptr;
    j["eager_fallback_reason"] = r.eager_fallback_reason;
  }
  // Several buckets: each one's own report (without buckets of its own), and the pools measured.
  if (!r.buckets.empty()) {
    json buckets = json::array();
    for (const AccelerateResult& bucket : r.buckets) buckets.push_back(AccelerateResultToJson(bucket));
    j["buckets"] = std::move(buckets);
    j["separate_pool_bytes"] = r.separate_pool_bytes;
    j["shared_pool_bytes"] = r.shared_pool_bytes;
    j["shared_capture_ns"] = r.shared_capture_ns;
    j["shared_weights"] = r.shared_weights;
    j["artifact_bytes"] = r.artifact_bytes;
  } else {
    j["buckets"] = json::array();
  }
  return j;
}

}  // namespace nimble::workflow
