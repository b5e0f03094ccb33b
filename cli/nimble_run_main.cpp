// nimble-run: load a model.nimble, capture, replay and time it (run_command.h).
#include <CLI/CLI.hpp>

#include "command.h"
#include "run_command.h"
#include "version.h"

int main(int argc, char** argv) {
  using namespace nimble::cli;
  CLI::App app{"nimble-run: replay an optimized runner written by nimble-accelerate"};
  app.set_version_flag("--version", std::string("nimble-run ") + kNimbleVersion);
  RunArgs args;
  AddRunOptions(app, args);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  return RunArtifact(args);
}
