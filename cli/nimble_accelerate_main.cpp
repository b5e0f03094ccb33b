// nimble-accelerate: ahead-of-time multi-stream scheduling of a TorchScript or torch.export model (accelerate_command.h).
#include <CLI/CLI.hpp>

#include "accelerate_command.h"
#include "command.h"
#include "version.h"

int main(int argc, char** argv) {
  using namespace nimble::cli;
  CLI::App app{"nimble-accelerate: capture a TorchScript (.pt) or torch.export (.pt2) model into a multi-stream CUDA graph"};
  app.set_version_flag("--version", std::string("nimble-accelerate ") + kNimbleVersion);
  AccelerateArgs args;
  for (int i = 0; i < argc; ++i) args.options.command_line += (i == 0 ? "" : " ") + std::string(argv[i]);
  AddAccelerateOptions(app, args);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  return RunAccelerate(args);
}
