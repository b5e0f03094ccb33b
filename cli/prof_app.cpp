#include "prof_app.h"

#include <cstdlib>

#include "calibrate_command.h"
#include "diff_command.h"
#include "export_command.h"
#include "import_command.h"
#include "info_command.h"
#include "upgrade_command.h"
#include "record_command.h"
#include "report_command.h"
#include "version.h"

namespace nimble::cli {
namespace {

// CLI11 says only "A subcommand is required" for `nimble-prof frobnicate`: name it, and the choices.
Status CheckCommandName(const std::vector<std::string>& argv, const std::vector<std::string>& names) {
  if (argv.size() < 2 || argv[1].empty() || argv[1].front() == '-') return OkStatus();
  for (const std::string& name : names) {
    if (argv[1] == name) return OkStatus();
  }
  std::string list;
  for (const std::string& name : names) list += (list.empty() ? "" : ", ") + name;
  return InvalidArgument("unknown command '" + argv[1] + "'; the commands are " + list +
                         ", or a model file (nimble-prof model.pt --input 1x3x224x224)");
}

}  // namespace

int ProfMain(int argc, char** argv, const ProfileRunner& profile_runner) {
  CLI::App app{"nimble-prof: measure where a GPU inference run loses its time"};
  app.set_version_flag("--version", std::string("nimble-prof ") + kNimbleVersion);
  app.require_subcommand(1);
  Action action;
  const bool model_profiler = static_cast<bool>(profile_runner);
  if (!model_profiler) {
    RegisterCalibrateCommand(app, action);
    RegisterDiffCommand(app, action);
    RegisterExportCommand(app, action);
    RegisterImportCommand(app, action);
    RegisterInfoCommand(app, action);
    RegisterRecordCommand(app, action);
    RegisterReportCommand(app, action);
    RegisterUpgradeCommand(app, action);
  }
  std::vector<std::string> args(argv, argv + argc);
  std::string command_line;
  for (const std::string& a : args) command_line += (command_line.empty() ? "" : " ") + a;
  // nimble-prof hands the user's own command line over, to be stored with the run.
  if (const char* passed = std::getenv(kCommandLineEnv); model_profiler && passed != nullptr) command_line = passed;
  auto rewritten = std::make_shared<std::vector<std::string>>();
  RegisterProfileCommand(app, action, rewritten, command_line, profile_runner);
  // `nimble-prof model.pt --input ...` means `nimble-prof profile model.pt --input ...`.
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) names.push_back(sub->get_name());
  *rewritten = RewriteModelShorthand(std::move(args), names);
  if (Status known = CheckCommandName(*rewritten, names); !known.ok()) return ReportError(known);
  std::vector<std::string> parsed = *rewritten;
  std::vector<char*> raw;
  for (std::string& a : parsed) raw.push_back(a.data());
  try {
    app.parse(static_cast<int>(raw.size()), raw.data());
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    // --help and --version are successes; every other parse error is a usage error.
    return code == 0 ? kExitOk : kExitUsage;
  }
  return action ? action() : kExitUsage;
}

}  // namespace nimble::cli
