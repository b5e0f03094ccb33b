#include "report_command.h"

#include <iostream>
#include <memory>
#include <optional>

#include "nimble/analysis/report.h"
#include "nimble/analysis/timeline.h"
#include "nimble/store/run_reader.h"
#include "nimble/store/run_writer.h"
#include "report_printer.h"

namespace nimble::cli {
namespace {

Status StoreResults(const std::string& path, RunId run, const analysis::Report& report) {
  NIMBLE_ASSIGN_OR_RETURN(auto writer, store::RunWriter::OpenRun(path, run));
  NIMBLE_RETURN_IF_ERROR(writer->WriteMetrics(analysis::ReportMetrics(report)));
  NIMBLE_RETURN_IF_ERROR(writer->WriteSpeedups(analysis::ReportSpeedups(report)));
  if (report.graph) NIMBLE_RETURN_IF_ERROR(writer->WriteAssignment(report.graph->assignment));
  return writer->Commit();
}

}  // namespace

Status ReportRun(const store::RunReader& reader, const RunInfo& run, const ReportArgs& args,
                 nlohmann::json& json_runs) {
  const std::string where = args.path + ", run " + std::to_string(run.id.value());
  NIMBLE_ASSIGN_OR_RETURN(Trace trace, reader.LoadTrace(run.id));
  NIMBLE_ASSIGN_OR_RETURN(OpGraph graph, reader.LoadGraph(run.id));
  NIMBLE_ASSIGN_OR_RETURN(auto attribution, reader.LoadAttribution(run.id));

  analysis::ReportOptions options;
  options.iteration_range = args.iteration_range.empty() ? analysis::DetectIterationRange(trace) : args.iteration_range;
  options.top_gaps = args.top_gaps;
  analysis::ReportInput input;
  input.trace = &trace;
  if (!graph.ops.empty()) {
    input.graph = &graph;
    input.attribution = attribution;
  }
  auto report = analysis::BuildReport(input, options);
  if (!report.ok()) return report.status().WithContext(where);

  ReportContext context{&run, input.graph, options.iteration_range};
  if (args.json) {
    json_runs.push_back(ReportToJson(*report, context));
  } else {
    PrintReport(std::cout, *report, context);
    std::cout << "\n";
  }
  if (!args.no_store) NIMBLE_RETURN_IF_ERROR(StoreResults(args.path, run.id, *report).WithContext("storing results"));
  return OkStatus();
}

namespace {

int RunReportCommand(const ReportArgs& args) {
  std::vector<RunInfo> runs;
  nlohmann::json json_runs = nlohmann::json::array();
  {
    auto reader = store::RunReader::Open(args.path);
    if (!reader.ok()) return ReportError(reader.status());
    if (args.run >= 0) {
      auto run = (*reader)->Run(RunId(args.run));
      if (!run.ok()) return ReportError(run.status());
      runs.push_back(*run);
    } else {
      auto all = (*reader)->Runs();
      if (!all.ok()) return ReportError(all.status());
      runs = *all;
    }
    if (runs.empty()) return ReportError(NotFound(args.path + ": the database holds no run"));
    for (const RunInfo& run : runs) {
      Status s = ReportRun(**reader, run, args, json_runs);
      if (!s.ok()) return ReportError(s);
    }
  }
  if (args.json) std::cout << nlohmann::json{{"database", args.path}, {"runs", json_runs}}.dump(2) << "\n";
  return kExitOk;
}

}  // namespace

void RegisterReportCommand(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("report", "Report GPU active time, idle gaps and their causes, critical path, "
                                           "concurrency, optimal streams and predicted speedup of recorded runs");
  auto args = std::make_shared<ReportArgs>();
  cmd->add_option("database", args->path, "run database (run.db)")->required();
  cmd->add_option("--run", args->run, "report only this run id (default: every run)");
  cmd->add_flag("--json", args->json, "print JSON instead of tables");
  cmd->add_option("--iteration-range", args->iteration_range,
                  "NVTX range text that marks one iteration (default: the most repeated non-overlapping range)");
  cmd->add_option("--top", args->top_gaps, "number of longest idle gaps to list")->check(CLI::Range(0, 1000));
  cmd->add_flag("--no-store", args->no_store, "do not write the results into the database");
  cmd->callback([&action, args] { action = [args] { return RunReportCommand(*args); }; });
}

}  // namespace nimble::cli
