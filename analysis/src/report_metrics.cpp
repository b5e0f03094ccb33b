// Turns a Report into the store's Metric and Speedup rows.
#include <string>

#include "nimble/analysis/report.h"

namespace nimble::analysis {
namespace {

void AddTimeline(const TimelineMetrics& t, int32_t window, std::vector<Metric>& out) {
  auto add = [&](std::string name, double value, const char* unit) { out.push_back({std::move(name), value, unit, window}); };
  add("window_ns", static_cast<double>(t.window.dur_ns()), "ns");
  add("gpu_active_ns", static_cast<double>(t.active_ns), "ns");
  add("gpu_idle_ns", static_cast<double>(t.idle_ns), "ns");
  add("gpu_overlap_ns", static_cast<double>(t.overlap_ns), "ns");
  add("active_ratio", t.active_ratio, "ratio");
  add("kernel_count", static_cast<double>(t.kernel_count), "count");
  if (t.graph_launch_count > 0) add("graph_launch_count", static_cast<double>(t.graph_launch_count), "count");
  for (size_t c = 0; c < kNumGapCauses; ++c) {
    const std::string cause(GapCauseName(static_cast<GapCause>(c)));
    add("idle_" + cause + "_ns", static_cast<double>(t.idle_by_cause.dur_ns[c]), "ns");
    add("idle_" + cause + "_count", static_cast<double>(t.idle_by_cause.count[c]), "count");
  }
  for (const StreamBusy& s : t.streams) {
    add("stream_" + std::to_string(s.stream.value()) + "_busy_ns", static_cast<double>(s.busy_ns), "ns");
  }
}

void AddHostGpuPath(const TraceCriticalPath& p, int32_t window, std::vector<Metric>& out) {
  auto add = [&](const char* name, int64_t ns) { out.push_back({name, static_cast<double>(ns), "ns", window}); };
  add("host_gpu_critical_path_ns", p.length_ns);
  add("host_gpu_critical_path_host_ns", p.host_ns);
  add("host_gpu_critical_path_gpu_ns", p.gpu_ns);
  add("host_gpu_critical_path_wait_ns", p.wait_ns);
}

void AddGraph(const GraphReport& g, std::vector<Metric>& out) {
  auto add = [&](std::string name, double value, const char* unit) { out.push_back({std::move(name), value, unit, -1}); };
  add("op_count", g.num_ops, "count");
  add("edge_count", static_cast<double>(g.num_edges), "count");
  add("reduced_edge_count", static_cast<double>(g.reduced_edges), "count");
  add("critical_path_ns", static_cast<double>(g.critical_path.length_ns), "ns");
  add("critical_path_ratio", g.critical_path_ratio, "ratio");
  add("logical_concurrency", g.concurrency.width, "count");
  add("stream_count", g.assignment.num_streams, "count");
  add("sync_count", static_cast<double>(g.assignment.syncs.size()), "count");
}

void AddPrediction(const PredictionReport& p, std::vector<Metric>& out) {
  auto add = [&](std::string name, double value, const char* unit) { out.push_back({std::move(name), value, unit, -1}); };
  add("measured_latency_ns", static_cast<double>(p.measured_ns), "ns");
  add("predicted_eager_ns", static_cast<double>(p.predicted.eager_ns), "ns");
  add("predicted_aot_single_ns", static_cast<double>(p.predicted.aot_single_ns), "ns");
  add("predicted_aot_multi_ns", static_cast<double>(p.predicted.aot_multi_ns), "ns");
  add("eager_launch_gap_ns", static_cast<double>(p.predicted.launch_gap_ns), "ns");
  add("predicted_speedup_aot_single", p.speedup_aot_single, "ratio");
  add("predicted_speedup_aot_multi", p.speedup_aot_multi, "ratio");
}

double Ms(int64_t ns) { return static_cast<double>(ns) / 1e6; }

}  // namespace

std::vector<Metric> ReportMetrics(const Report& report) {
  std::vector<Metric> out;
  if (const DeviceReport* d = report.primary_device()) {
    AddTimeline(d->run, -1, out);
    AddHostGpuPath(d->run_path, -1, out);
    for (size_t i = 0; i < d->iterations.size(); ++i) {
      AddTimeline(d->iterations[i], static_cast<int32_t>(i), out);
      if (i < d->iteration_paths.size()) AddHostGpuPath(d->iteration_paths[i], static_cast<int32_t>(i), out);
    }
  }
  if (report.graph.has_value()) AddGraph(*report.graph, out);
  if (report.prediction.has_value()) AddPrediction(*report.prediction, out);
  return out;
}

std::vector<Speedup> ReportSpeedups(const Report& report) {
  if (!report.prediction.has_value()) return {};
  const PredictionReport& p = *report.prediction;
  const double baseline_ms = Ms(p.measured_ns);
  return {
      {RunMode::kEager, baseline_ms, Ms(p.predicted.eager_ns), baseline_ms},
      {RunMode::kAotSingle, 0, Ms(p.predicted.aot_single_ns), baseline_ms},
      {RunMode::kAotMulti, 0, Ms(p.predicted.aot_multi_ns), baseline_ms},
  };
}

}  // namespace nimble::analysis
