#include "record_command.h"

#include <iostream>
#include <memory>

#include "nimble/workflow/record.h"
#include "progress_printer.h"

namespace nimble::cli {
namespace {

void PrintSummary(std::ostream& out, const workflow::RecordResult& r) {
  out << "nimble-prof: recorded run " << r.run.id.value() << " into " << r.path << (r.run.device.empty() ? "" : " on ")
      << r.run.device << "\n  " << r.kernels << " kernels on " << r.streams << " streams, " << r.memcpys
      << " memcpys, " << r.memsets << " memsets, " << r.syncs << " syncs, " << r.api_calls << " API calls, "
      << r.ranges << " NVTX ranges";
  if (r.graph_launches > 0) out << ", " << r.graph_launches << " graph launches (graph level)";
  if (r.run.iterations > 0) out << ", " << r.run.iterations << " iterations";
  if (r.hardware_timestamps) out << ", kernel timestamps from hardware";
  out << "\n  dropped records: " << r.dropped << "\n";
  for (const StatEntry& s : r.problems) {
    out << "  " << SeverityName(s.severity) << ": " << s.name << " = " << s.value << " (" << s.description << ")\n";
  }
}

int RunRecord(const workflow::RecordOptions& options) {
  ProgressPrinter printer("nimble-prof", /*quiet=*/false);
  auto recorded = workflow::Record(options, printer.Callback());
  if (!recorded.ok()) return ReportError(recorded.status());
  PrintSummary(std::cout, *recorded);
  if (!recorded->program_end.empty()) {
    std::cerr << "nimble-prof: " << recorded->program_end << "; the run was recorded up to that point\n";
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace

void RegisterRecordCommand(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("record", "Run a CUDA program and record its GPU activity into a run database");
  auto o = std::make_shared<workflow::RecordOptions>();
  cmd->add_option("-o,--output", o->output, "run database to write (a new run is added if it exists)")
      ->capture_default_str();
  cmd->add_option("--kinds", o->kinds, "activity kinds, comma-separated: all or " +
                                           workflow::KnownActivityKinds())
      ->capture_default_str();
  cmd->add_option("--iteration-range", o->iteration_range, "NVTX range name that delimits one iteration");
  cmd->add_option("--delay-ms", o->delay_ms, "start capturing this many milliseconds after CUDA starts")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--capture-range", o->capture_range, "capture only while an NVTX range of this name is open");
  cmd->add_option("--graph-trace", o->graph_trace,
                  "CUDA graph launches: node (a record per kernel and copy) or graph (one record per launch, "
                  "without its nodes, at a fraction of the overhead; for the whole run, not with --delay-ms or "
                  "--capture-range)")
      ->check(CLI::IsMember({"node", "graph"}))
      ->capture_default_str();
  cmd->add_option("--kernel-timestamps", o->kernel_timestamps,
                  "where kernel timestamps come from: software (CUPTI instruments each launch) or hardware (the "
                  "GPU's event system, without that instrumentation; Blackwell only: elsewhere the run is recorded "
                  "with software timestamps and a warning)")
      ->check(CLI::IsMember({"software", "hardware"}))
      ->capture_default_str();
  cmd->add_option("command", o->command, "-- program and its arguments")->required();
  cmd->callback([&action, o] { action = [o] { return RunRecord(*o); }; });
}

}  // namespace nimble::cli
