#include "export_command.h"

#include <iostream>
#include <memory>

#include "nimble/store/run_database.h"
#include "nimble/workflow/export_chrome.h"
#include "nimble/workflow/format.h"
#include "progress_printer.h"

namespace nimble::cli {
namespace {

struct ExportArgs {
  std::string path;
  std::string format = "chrome";
  std::string output;
  bool quiet = false;
  workflow::ChromeExportOptions options;
};

void PrintSummary(const workflow::ChromeExportResult& result) {
  std::cout << "wrote " << result.path << (result.gzip ? " (gzip)" : "") << ": " << result.events << " events, "
            << result.bytes << " bytes; ts in µs after baseTimeNanoseconds " << result.base_time_ns << "\n";
  for (const workflow::ChromeRunSummary& run : result.runs) {
    std::cout << "  run " << run.run << ": " << run.kernels << " kernels, " << run.copies << " copies/sets, "
              << run.api_calls << " API calls, " << run.ranges << " NVTX ranges, " << run.flows << " arrows, "
              << run.idle_gaps << " idle gaps (" << workflow::FormatDuration(run.idle_ns) << ")";
    if (run.critical_path_ops > 0) std::cout << ", " << run.critical_path_ops << " critical-path ops";
    if (run.trace_critical_path_segments > 0) {
      std::cout << ", " << run.trace_critical_path_segments << " host+GPU critical-path segments";
    }
    if (run.assigned_ops > 0) std::cout << ", " << run.assigned_ops << " ops on assigned streams";
    if (run.overflow_tracks > 0) std::cout << ", " << run.overflow_tracks << " tracks split for overlapping events";
    std::cout << "\n";
  }
}

int RunExportCommand(const ExportArgs& args) {
  // Usage errors end in CLI11's parsing (exit 2); from here on every failure is the input's or the
  // output file's (exit 1), even where a library calls bad data an invalid argument.
  auto db = store::RunDatabase::Open(args.path, store::Access::kRead);
  if (!db.ok()) return PrintError("nimble-prof", db.status());
  ProgressPrinter printer("nimble-prof", args.quiet);
  auto result = workflow::ExportChrome(**db, args.output, args.options, printer.Callback());
  if (!result.ok()) return PrintError("nimble-prof", result.status());
  PrintSummary(*result);
  return kExitOk;
}

}  // namespace

void RegisterExportCommand(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(
      "export", "Write recorded runs as a Chrome/Perfetto trace (JSON, or gzip with -o x.json.gz)");
  auto args = std::make_shared<ExportArgs>();
  cmd->add_option("database", args->path, "run database (run.db)")->required();
  cmd->add_option("--format", args->format, "output format")->check(CLI::IsMember({"chrome"}))->capture_default_str();
  cmd->add_option("-o,--output", args->output, "trace file to write (trace.json or trace.json.gz)")->required();
  cmd->add_option("--run", args->options.run,
                  "export only this run id (default: every run, each in its own group of processes)");
  cmd->add_option("--iteration-range", args->options.iteration_range,
                  "NVTX range text that marks one iteration (default: the most repeated non-overlapping range)");
  cmd->add_flag("-q,--quiet", args->quiet, "print no progress");
  cmd->callback([&action, args] { action = [args] { return RunExportCommand(*args); }; });
}

}  // namespace nimble::cli
