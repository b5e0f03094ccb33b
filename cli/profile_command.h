// `nimble-prof model.pt --input 1x3x224x224 [-o run.db] [--iters N --warmup W]` (also spelled
// `nimble-prof profile model.pt ...`): flags over workflow::ProfileModel, then the run's report and
// the profiling headline (tables or --json) on stdout.
#pragma once

#include <string>
#include <vector>

#include "command.h"

namespace nimble::cli {

// `command_line` is stored in the run as the command that produced it.
void RegisterProfileCommand(CLI::App& app, Action& action, const std::string& command_line);

// argv with "profile" inserted before argv[1] when that names a model rather than a subcommand: it
// ends in .pt, .pth, .ts or .ptl, or is an existing file, and is neither an option nor one of `commands`.
std::vector<std::string> RewriteModelShorthand(std::vector<std::string> argv, const std::vector<std::string>& commands);

}  // namespace nimble::cli
