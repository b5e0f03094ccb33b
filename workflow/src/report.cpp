#include "nimble/workflow/report.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "nimble/analysis/timeline.h"

namespace nimble::workflow {
namespace {

// The first and last instant of any record of the run (activity and API calls), or nullopt when empty.
std::optional<analysis::TimeWindow> RecordSpan(const Trace& trace) {
  std::optional<analysis::TimeWindow> span;
  auto add = [&](int64_t start, int64_t end) {
    if (!span) span = analysis::TimeWindow{start, end};
    span->start_ns = std::min(span->start_ns, start);
    span->end_ns = std::max(span->end_ns, end);
  };
  for (const auto& k : trace.kernels) add(k.start_ns, k.end_ns);
  for (const auto& c : trace.memcpys) add(c.start_ns, c.end_ns);
  for (const auto& m : trace.memsets) add(m.start_ns, m.end_ns);
  for (const auto& a : trace.api_calls) add(a.start_ns, a.end_ns);
  for (const auto& g : trace.graph_launches) add(g.start_ns, g.end_ns);
  return span;
}

// Iteration windows come from NVTX ranges recorded on the same clock as the rest of the run, so each
// one overlaps the run's records; one that does not means a damaged range, and its iteration's figures
// would be made up of nothing.
Status CheckWindowsAgainstSpan(const Trace& trace, const std::string& range, const std::string& where) {
  if (range.empty()) return OkStatus();
  const std::optional<analysis::TimeWindow> span = RecordSpan(trace);
  if (!span) return OkStatus();
  const std::vector<analysis::TimeWindow> windows = analysis::WindowsFromNvtx(trace, range);
  for (size_t i = 0; i < windows.size(); ++i) {
    const analysis::TimeWindow& w = windows[i];
    if (w.end_ns > span->start_ns && w.start_ns < span->end_ns) continue;
    return DataLoss(where + ": the file is damaged or inconsistent: iteration " + std::to_string(i + 1) + " ('" +
                    range + "', [" + std::to_string(w.start_ns) + ", " + std::to_string(w.end_ns) +
                    "] ns) lies outside the run's records [" + std::to_string(span->start_ns) + ", " +
                    std::to_string(span->end_ns) + "] ns");
  }
  return OkStatus();
}

}  // namespace

StatusOr<std::vector<RunInfo>> SelectRuns(const store::RunReader& reader, int64_t run) {
  if (run >= 0) {
    NIMBLE_ASSIGN_OR_RETURN(RunInfo one, reader.Run(RunId(run)));
    return std::vector<RunInfo>{one};
  }
  NIMBLE_ASSIGN_OR_RETURN(std::vector<RunInfo> all, reader.Runs());
  if (all.empty()) return NotFound(reader.path() + ": the database holds no run");
  return all;
}

StatusOr<RunReport> BuildRunReport(const RunInfo& run, const Trace& trace, OpGraph graph,
                                   std::span<const KernelAttribution> attribution, const ReportOptions& options,
                                   const std::string& where) {
  RunReport out;
  out.run = run;
  out.graph = std::move(graph);
  analysis::ReportOptions analysis_options;
  out.iteration_range =
      options.iteration_range.empty() ? analysis::DetectIterationRange(trace) : options.iteration_range;
  analysis_options.iteration_range = out.iteration_range;
  NIMBLE_RETURN_IF_ERROR(CheckWindowsAgainstSpan(trace, out.iteration_range, where));
  analysis_options.top_gaps = options.top_gaps;
  analysis::ReportInput input;
  input.trace = &trace;
  if (out.graph_or_null() != nullptr) {
    input.graph = &out.graph;
    input.attribution = attribution;
  }
  auto report = analysis::BuildReport(input, analysis_options);
  if (!report.ok()) return report.status().WithContext(where);
  out.report = std::move(*report);
  const analysis::DeviceReport* device = out.report.primary_device();
  if (!options.iteration_range.empty() && device != nullptr && device->iterations.empty()) {
    const std::string marked = analysis::DetectIterationRange(trace);
    out.warnings.push_back("run " + std::to_string(run.id.value()) + ": no NVTX range is named '" +
                           options.iteration_range + "', so the report has no iteration windows" +
                           (marked.empty() ? std::string() : " (the run's iterations are marked '" + marked + "')"));
  }
  return out;
}

StoredResults ResultsOf(const RunReport& report) {
  StoredResults out{analysis::ReportMetrics(report.report), analysis::ReportSpeedups(report.report), std::nullopt};
  if (report.report.graph) out.assignment = report.report.graph->assignment;
  return out;
}

StatusOr<ReportDatabase> OpenForReport(const std::string& path, bool store) {
  ReportDatabase out;
  if (store) {
    auto writable = store::RunDatabase::Open(path, store::Access::kReadWrite);
    if (writable.ok()) {
      out.db = std::move(*writable);
      return out;
    }
    const StatusCode code = writable.status().code();
    if (code != StatusCode::kPermissionDenied && code != StatusCode::kFailedPrecondition) return writable.status();
    out.not_stored = writable.status().message();
  }
  NIMBLE_ASSIGN_OR_RETURN(out.db, store::RunDatabase::Open(path, store::Access::kRead));
  return out;
}

StatusOr<ReportResult> Report(store::RunDatabase& db, const ReportOptions& options) {
  const store::RunReader& reader = db.reader();
  NIMBLE_ASSIGN_OR_RETURN(const std::vector<RunInfo> runs, SelectRuns(reader, options.run));
  ReportResult result{db.path(), {}};
  for (const RunInfo& run : runs) {
    NIMBLE_ASSIGN_OR_RETURN(const Trace trace, reader.LoadTrace(run.id));
    NIMBLE_ASSIGN_OR_RETURN(OpGraph graph, reader.LoadGraph(run.id));
    NIMBLE_ASSIGN_OR_RETURN(const std::vector<KernelAttribution> attribution, reader.LoadAttribution(run.id));
    const std::string where = db.path() + ", run " + std::to_string(run.id.value());
    NIMBLE_ASSIGN_OR_RETURN(RunReport report,
                            BuildRunReport(run, trace, std::move(graph), attribution, options, where));
    // Nothing recorded, nothing to compute from: what the run holds was stored by whoever made it. A
    // run of nimble-accelerate keeps what it measured (latencies over its timed replays, memory, the
    // captured schedule) even when its replays were recorded as well: the report of the recording is
    // shown beside them, never stored over them.
    const bool recorded = trace.size() > 0;
    const bool keeps_results = !recorded || run.mode == RunMode::kAotSingle || run.mode == RunMode::kAotMulti;
    if (keeps_results) {
      NIMBLE_ASSIGN_OR_RETURN(std::vector<Metric> stored, reader.LoadMetrics(run.id));
      for (Metric& m : stored) {
        if (m.window < 0) report.stored_metrics.push_back(std::move(m));
      }
    }
    if (options.store && !keeps_results) {
      const StoredResults stored = ResultsOf(report);
      const store::RunResults results{stored.metrics, stored.speedups,
                                      stored.assignment ? &*stored.assignment : nullptr};
      NIMBLE_RETURN_IF_ERROR(db.StoreResults(run.id, results).WithContext("storing results"));
    }
    result.runs.push_back(std::move(report));
  }
  return result;
}

}  // namespace nimble::workflow
