#include "report_command.h"

#include <iostream>
#include <memory>

#include "nimble/workflow/report.h"
#include "nimble/workflow/report_json.h"
#include "report_printer.h"

namespace nimble::cli {
namespace {

struct ReportArgs {
  std::string path;
  bool json = false;
  workflow::ReportOptions options;
};

int RunReportCommand(const ReportArgs& args) {
  auto opened = workflow::OpenForReport(args.path, args.options.store);
  if (!opened.ok()) return ReportError(opened.status());
  workflow::ReportOptions options = args.options;
  options.store = options.store && opened->not_stored.empty();
  auto result = workflow::Report(*opened->db, options);
  if (!result.ok()) return ReportError(result.status());
  if (args.json) {
    std::cout << workflow::ReportResultToJson(*result).dump(2) << "\n";
  } else {
    for (const workflow::RunReport& run : result->runs) {
      PrintReport(std::cout, run);
      std::cout << "\n";
    }
  }
  for (const workflow::RunReport& run : result->runs) {
    for (const std::string& warning : run.warnings) std::cerr << "nimble-prof: warning: " << warning << "\n";
  }
  // Reporting is what was asked; the results simply stay out of a file that cannot take them.
  if (!opened->not_stored.empty()) std::cerr << "nimble-prof: results not stored: " << opened->not_stored << "\n";
  return kExitOk;
}

}  // namespace

void RegisterReportCommand(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("report", "Report GPU active time, idle gaps and their causes, critical path, "
                                           "concurrency, optimal streams and predicted speedup of recorded runs");
  auto args = std::make_shared<ReportArgs>();
  cmd->add_option("database", args->path, "run database (run.db)")->required();
  cmd->add_option("--run", args->options.run, "report only this run id (default: every run)");
  cmd->add_flag("--json", args->json, "print JSON instead of tables");
  cmd->add_option("--iteration-range", args->options.iteration_range,
                  "NVTX range text that marks one iteration (default: the most repeated non-overlapping range)");
  cmd->add_option("--top", args->options.top_gaps, "number of longest idle gaps to list")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  cmd->add_flag("--no-store{false}", args->options.store, "do not write the results into the database");
  cmd->callback([&action, args] { action = [args] { return RunReportCommand(*args); }; });
}

}  // namespace nimble::cli
