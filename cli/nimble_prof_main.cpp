// nimble-prof: record, inspect and analyse GPU runs. Each subcommand lives in its own file.
#include <iostream>

#include <CLI/CLI.hpp>

#include "command.h"
#include "info_command.h"
#include "profile_command.h"
#include "record_command.h"
#include "report_command.h"
#include "version.h"

int main(int argc, char** argv) {
  using namespace nimble::cli;
  CLI::App app{"nimble-prof: measure where a GPU inference run loses its time"};
  app.set_version_flag("--version", std::string("nimble-prof ") + kNimbleVersion);
  app.require_subcommand(1);
  Action action;
  RegisterInfoCommand(app, action);
  RegisterRecordCommand(app, action);
  RegisterReportCommand(app, action);
  std::vector<std::string> args(argv, argv + argc);
  std::string command_line;
  for (const std::string& a : args) command_line += (command_line.empty() ? "" : " ") + a;
  RegisterProfileCommand(app, action, command_line);
  // `nimble-prof model.pt --input ...` means `nimble-prof profile model.pt --input ...`.
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) names.push_back(sub->get_name());
  args = RewriteModelShorthand(std::move(args), names);
  std::vector<char*> rewritten;
  for (std::string& a : args) rewritten.push_back(a.data());
  try {
    app.parse(static_cast<int>(rewritten.size()), rewritten.data());
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    // --help and --version are successes; every other parse error is a usage error.
    return code == 0 ? kExitOk : kExitUsage;
  }
  return action ? action() : kExitUsage;
}
