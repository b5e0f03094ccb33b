#include "nimble/workflow/report.h"

#include <utility>

#include "nimble/analysis/timeline.h"

namespace nimble::workflow {
namespace {

StatusOr<std::vector<RunInfo>> SelectRuns(const store::RunReader& reader, int64_t run) {
  if (run >= 0) {
    NIMBLE_ASSIGN_OR_RETURN(RunInfo one, reader.Run(RunId(run)));
    return std::vector<RunInfo>{one};
  }
  NIMBLE_ASSIGN_OR_RETURN(std::vector<RunInfo> all, reader.Runs());
  if (all.empty()) return NotFound(reader.path() + ": the database holds no run");
  return all;
}

}  // namespace

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
    out.warnings.push_back("run " + std::to_string(run.id.value()) + ": no NVTX range is named '" +
                           options.iteration_range + "', so the report has no iteration windows" +
                           (analysis::DetectIterationRange(trace).empty()
                                ? std::string()
                                : " (the run's iterations are marked '" + analysis::DetectIterationRange(trace) + "')"));
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
    if (options.store) {
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
