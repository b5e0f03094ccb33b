#include "diff_command.h"

#include <iostream>
#include <memory>
#include <optional>

#include "diff_printer.h"
#include "nimble/workflow/diff.h"
#include "nimble/workflow/diff_json.h"

namespace nimble::cli {
namespace {

struct DiffArgs {
  std::string base_path;
  std::string new_path;
  bool json = false;
  std::optional<double> fail_above_percent;
  size_t top = 10;
  workflow::DiffOptions options;
};

int RunDiffCommand(const DiffArgs& args) {
  auto result = workflow::DiffFiles(args.base_path, args.new_path, args.options);
  if (!result.ok()) return ReportError(result.status());
  std::optional<workflow::RegressionGate> gate;
  if (args.fail_above_percent) gate = workflow::CheckRegression(result->diff, *args.fail_above_percent);
  if (args.json) {
    std::cout << workflow::DiffResultToJson(*result, gate ? &*gate : nullptr).dump(2) << "\n";
  } else {
    PrintDiff(std::cout, *result, args.top);
  }
  for (const std::string& warning : result->warnings) std::cerr << "nimble-prof: warning: " << warning << "\n";
  if (!gate) return kExitOk;
  // With --json stdout stays one JSON document; the gate's line goes with the warnings.
  (args.json ? std::cerr : std::cout) << (args.json ? "" : "\n") << gate->Describe() << "\n";
  return gate->failed ? kExitFailure : kExitOk;
}

}  // namespace

void RegisterDiffCommand(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("diff", "Compare two runs per kernel, op, idle-gap cause and in total, "
                                         "telling change from noise across iterations");
  auto args = std::make_shared<DiffArgs>();
  cmd->add_option("base", args->base_path, "run database of the base run (base.db)")->required();
  cmd->add_option("new", args->new_path, "run database of the new run (new.db; may be the same file)")->required();
  cmd->add_flag("--json", args->json, "print JSON instead of tables");
  cmd->add_option("--fail-above", args->fail_above_percent,
                  "exit 1 when the median iteration time grew by more than PCT percent and the change is significant")
      ->check(CLI::NonNegativeNumber)
      ->type_name("PCT");
  cmd->add_option("--top", args->top, "kernels and ops listed (largest significant changes)")->check(CLI::Range(0, 10000))
      ->capture_default_str();
  cmd->add_option("--base-run", args->options.base_run, "run id in the base database (default: its last run)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--new-run", args->options.new_run, "run id in the new database (default: its last run)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--iteration-range", args->options.iteration_range,
                  "NVTX range text that marks one iteration in both runs (default: detected per run)");
  cmd->callback([&action, args] { action = [args] { return RunDiffCommand(*args); }; });
}

}  // namespace nimble::cli
