#include "nimble/workflow/report_json.h"

#include <optional>
#include <string>

#include "nimble/analysis/idle_gaps.h"

namespace nimble::workflow {
namespace {

using nlohmann::json;

json TimelineJson(const analysis::TimelineMetrics& m) {
  json causes = json::object();
  for (size_t c = 0; c < analysis::kNumGapCauses; ++c) {
    const auto cause = static_cast<analysis::GapCause>(c);
    causes[std::string(analysis::GapCauseName(cause))] = {{"idle_ns", m.idle_by_cause.dur_ns[c]},
                                                           {"gaps", m.idle_by_cause.count[c]}};
  }
  json streams = json::array();
  for (const auto& s : m.streams) {
    streams.push_back({{"stream", s.stream.value()}, {"busy_ns", s.busy_ns}, {"kernels", s.kernel_count}});
  }
  json j = {{"start_ns", m.window.start_ns},   {"end_ns", m.window.end_ns},   {"active_ns", m.active_ns},
            {"idle_ns", m.idle_ns},             {"overlap_ns", m.overlap_ns}, {"active_ratio", m.active_ratio},
            {"kernels", m.kernel_count},        {"idle_by_cause", causes},    {"streams", streams}};
  if (m.graph_launch_count > 0) j["graph_launches"] = m.graph_launch_count;  // --graph-trace graph only
  return j;
}

json GapJson(const analysis::IdleGap& g) {
  json j = {{"start_ns", g.start_ns},
            {"dur_ns", g.dur_ns},
            {"cause", std::string(analysis::GapCauseName(g.cause))},
            {"from_graph", g.next_from_graph}};
  if (g.next_stream.valid()) j["next_stream"] = g.next_stream.value();
  if (g.next_correlation.valid()) j["next_correlation"] = g.next_correlation.value();
  return j;
}

// Totals of a host/GPU critical path: what every window reports.
json PathTotalsJson(const analysis::TraceCriticalPath& p) {
  return {{"length_ns", p.length_ns}, {"host_ns", p.host_ns}, {"gpu_ns", p.gpu_ns}, {"wait_ns", p.wait_ns}};
}

// An eager model's iteration is launch-bound: its path is thousands of API calls and the CPU time
// between them (6030 segments in samples/recorded/inception_v3.db), and a run without iteration
// windows has one path over all of its records. The first this many segments are listed, in time
// order, the rest counted in "segments_omitted"; the split always covers the whole path.
constexpr size_t kMaxPathSegments = 256;

json SegmentJson(const analysis::TraceCriticalPath& p, const analysis::PathSegment& s) {
  json j = {{"start_ns", s.start_ns},
            {"end_ns", s.end_ns},
            {"kind", std::string(analysis::PathSegmentKindName(s.kind()))},
            {"step", std::string(analysis::PathStepName(s.step))},
            {"record", std::string(analysis::TraceRecordKindName(s.record.kind))},
            {"index", s.record.index},
            {"name", p.NameOf(s)}};
  if (s.stream.valid()) j["stream"] = s.stream.value();
  if (s.thread.valid()) j["thread"] = s.thread.value();
  return j;
}

// The path of the median iteration, else of the whole run, with its segments.
json HostGpuPathJson(const analysis::DeviceReport& dev) {
  const std::optional<size_t> median = analysis::MedianIteration(dev);
  const bool iteration = median && *median < dev.iteration_paths.size();
  const analysis::TraceCriticalPath& p = iteration ? dev.iteration_paths[*median] : dev.run_path;
  json j = PathTotalsJson(p);
  j["window"] = iteration ? "median_iteration" : "run";
  j["start_ns"] = p.start_ns;
  j["end_ns"] = p.end_ns;
  json segments = json::array();
  for (size_t i = 0; i < p.segments.size() && i < kMaxPathSegments; ++i) segments.push_back(SegmentJson(p, p.segments[i]));
  j["segments"] = std::move(segments);
  if (p.segments.size() > kMaxPathSegments) j["segments_omitted"] = p.segments.size() - kMaxPathSegments;
  return j;
}

json OpsJson(const std::vector<OpId>& ops) {
  json a = json::array();
  for (OpId op : ops) a.push_back(op.value());
  return a;
}

json GraphJson(const analysis::GraphReport& g) {
  return {{"ops", g.num_ops},
          {"edges", g.num_edges},
          {"reduced_edges", g.reduced_edges},
          {"matched_edges", g.matched_edges},
          {"critical_path", {{"length_ns", g.critical_path.length_ns},
                             {"ratio_to_active", g.critical_path_ratio},
                             {"ops", OpsJson(g.critical_path.ops)}}},
          {"width", g.concurrency.width},
          {"antichain", OpsJson(g.concurrency.antichain)},
          {"assignment", AssignmentToJson(g.assignment)}};
}

}  // namespace

json AssignmentToJson(const StreamAssignment& a) {
  json op_stream = json::array();
  for (StreamId s : a.op_stream) op_stream.push_back(s.value());
  json syncs = json::array();
  for (const OpEdge& e : a.syncs) syncs.push_back({e.src.value(), e.dst.value()});
  return {{"streams", a.num_streams}, {"op_stream", op_stream}, {"syncs", syncs}};
}

json ReportToJson(const RunReport& run_report) {
  const analysis::Report& report = run_report.report;
  const RunInfo& run = run_report.run;
  json j;
  j["run"] = {{"id", run.id.value()}, {"mode", RunModeName(run.mode)}, {"model", run.model},
              {"inputs", run.inputs}, {"device", run.device}, {"iterations", run.iterations}};
  j["iteration_range"] = run_report.iteration_range;
  if (!run_report.warnings.empty()) j["warnings"] = run_report.warnings;
  if (!run_report.stored_metrics.empty()) {
    json stored = json::object();
    for (const Metric& m : run_report.stored_metrics) stored[m.name] = m.value;
    j["stored_metrics"] = stored;
  }
  j["devices"] = json::array();
  for (const auto& dev : report.devices) {
    json d = {{"device", dev.run.device.value()}, {"run", TimelineJson(dev.run)}};
    d["run"]["host_gpu_critical_path"] = PathTotalsJson(dev.run_path);
    const std::optional<size_t> median = analysis::MedianIteration(dev);
    d["median_iteration"] = median ? json(*median) : json(nullptr);
    d["iterations"] = json::array();
    for (size_t i = 0; i < dev.iterations.size(); ++i) {
      json it = TimelineJson(dev.iterations[i]);
      if (i < dev.iteration_paths.size()) it["host_gpu_critical_path"] = PathTotalsJson(dev.iteration_paths[i]);
      d["iterations"].push_back(std::move(it));
    }
    d["host_gpu_critical_path"] = HostGpuPathJson(dev);
    d["longest_gaps"] = json::array();
    for (const auto& g : dev.longest_gaps) d["longest_gaps"].push_back(GapJson(g));
    j["devices"].push_back(std::move(d));
  }
  j["graph"] = report.graph ? GraphJson(*report.graph) : json(nullptr);
  if (report.prediction) {
    const auto& p = *report.prediction;
    j["prediction"] = {{"measured_ns", p.measured_ns},
                       {"eager_ns", p.predicted.eager_ns},
                       {"aot_single_ns", p.predicted.aot_single_ns},
                       {"aot_multi_ns", p.predicted.aot_multi_ns},
                       {"launch_gap_ns", p.predicted.launch_gap_ns},
                       {"speedup_aot_single", p.speedup_aot_single},
                       {"speedup_aot_multi", p.speedup_aot_multi}};
  } else {
    j["prediction"] = nullptr;
  }
  return j;
}

json ReportResultToJson(const ReportResult& result) {
  json runs = json::array();
  for (const RunReport& run : result.runs) runs.push_back(ReportToJson(run));
  return {{"database", result.path}, {"runs", runs}};
}

}  // namespace nimble::workflow
