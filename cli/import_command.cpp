#include "import_command.h"

#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "nimble/workflow/import.h"
#include "progress_printer.h"

namespace nimble::cli {
namespace {

struct ImportArgs {
  workflow::ImportOptions options;
  bool json = false;
  std::string command_line;
};

std::string FormatName(const workflow::ImportResult& r) {
  const bool kineto = r.format.format == workflow::TraceFormat::kKinetoJson;
  return std::string(kineto ? "torch.profiler trace" : "Nsight Systems export") + (r.format.gzip ? ", gzip" : "");
}

std::string NextCommand(const workflow::ImportResult& r) { return "nimble-prof report " + r.output; }

void PrintSummary(std::ostream& out, const workflow::ImportResult& r) {
  out << "nimble-prof: imported " << r.input << " (" << FormatName(r) << ") into " << r.output << " as run "
      << r.run.id.value() << (r.run.device.empty() ? "" : " on ") << r.run.device << "\n";
  out << "  " << r.events_read() << " events: " << r.kernels << " kernels on " << r.streams << " streams, " << r.memcpys
      << " memcpys, " << r.memsets << " memsets, " << r.syncs << " syncs, " << r.api_calls << " API calls, " << r.ranges
      << " ranges (CPU ops and annotations), " << r.external_correlations << " op-to-call links\n";
  if (r.iteration_range.empty()) {
    out << "  iterations: none marked (no ProfilerStep#N ranges; report uses the whole run)\n";
  } else {
    out << "  iterations: " << r.run.iterations << " (ranges '" << r.iteration_range << "')\n";
  }
  for (const StatEntry& s : r.warnings) {
    out << "  " << SeverityName(s.severity) << ": " << s.name << " = " << s.value << " (" << s.description << ")\n";
  }
  out << "next: " << NextCommand(r) << "\n";
}

nlohmann::json SummaryJson(const workflow::ImportResult& r) {
  nlohmann::json warnings = nlohmann::json::array();
  for (const StatEntry& s : r.warnings) {
    warnings.push_back({{"name", s.name}, {"value", s.value}, {"severity", SeverityName(s.severity)},
                        {"description", s.description}});
  }
  return {{"input", r.input},
          {"output", r.output},
          {"format", r.source_format},
          {"gzip", r.format.gzip},
          {"run", r.run.id.value()},
          {"device", r.run.device},
          {"events", r.events_read()},
          {"records",
           {{"kernels", r.kernels},
            {"memcpys", r.memcpys},
            {"memsets", r.memsets},
            {"syncs", r.syncs},
            {"api_calls", r.api_calls},
            {"ranges", r.ranges},
            {"external_correlations", r.external_correlations},
            {"overheads", r.overheads},
            {"devices", r.devices},
            {"streams", r.streams}}},
          {"iteration_range", r.iteration_range},
          {"iterations", r.run.iterations},
          {"warnings", warnings},
          {"next", NextCommand(r)}};
}

int RunImport(const ImportArgs& args) {
  ProgressPrinter printer("nimble-prof", /*quiet=*/args.json);
  // Warnings are part of the summary; only the steps are drawn while the import runs.
  const workflow::ProgressFn steps = [&printer](const workflow::ProgressUpdate& u) {
    if (u.kind != workflow::ProgressKind::kWarning) printer.Print(u);
  };
  workflow::ImportOptions options = args.options;
  options.command = args.command_line;
  auto imported = workflow::Import(options, steps);
  if (!imported.ok()) return ReportError(imported.status());
  if (args.json) {
    std::cout << SummaryJson(*imported).dump(2) << "\n";
  } else {
    PrintSummary(std::cout, *imported);
  }
  return kExitOk;
}

}  // namespace

void RegisterImportCommand(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("import", "Turn a torch.profiler trace (trace.json or .json.gz) or an Nsight Systems "
                                           "SQLite export into a run of a run database");
  auto args = std::make_shared<ImportArgs>();
  cmd->add_option("trace", args->options.input, "trace file: torch.profiler JSON (plain or gzip), or an nsys export")
      ->required();
  cmd->add_option("-o,--output", args->options.output, "run database to write (a new run is added if it exists)")
      ->required();
  cmd->add_option("--threads", args->options.threads,
                  "threads that parse a large JSON trace; 0 (the default): one per core. The run is the same "
                  "for any number")
      ->check(CLI::Range(0, 1024));
  cmd->add_flag("--json", args->json, "print the summary as JSON");
  cmd->callback([&action, args] {
    args->command_line = "nimble-prof import " + args->options.input + " -o " + args->options.output;
    action = [args] { return RunImport(*args); };
  });
}

}  // namespace nimble::cli
