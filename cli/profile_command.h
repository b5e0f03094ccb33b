// `nimble-prof model.pt --input 1x3x224x224 [-o run.db] [--iters N --warmup W]` (also spelled
// `nimble-prof profile model.pt ...`): runs a TorchScript model eagerly on the GPU under the in-process
// collector, each op's kernels attributed to it, stores trace, graph and attribution, then reports.
// Builds without libtorch or CUDA keep the command and say how to get it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "command.h"

namespace nimble::cli {

// `command_line` is stored in the run as the command that produced it.
void RegisterProfileCommand(CLI::App& app, Action& action, const std::string& command_line);

// argv with "profile" inserted before argv[1] when that names a model rather than a subcommand: it
// ends in .pt, .pth, .ts or .ptl, or is an existing file, and is neither an option nor one of `commands`.
std::vector<std::string> RewriteModelShorthand(std::vector<std::string> argv, const std::vector<std::string>& commands);

// "1x3x224x224" -> {1, 3, 224, 224}; every dimension a positive integer.
StatusOr<std::vector<int64_t>> ParseInputShape(const std::string& text);

// Where a run goes without -o: "<model file stem>.nimble.db" in the working directory.
std::string DefaultProfileOutput(const std::string& model_path);

}  // namespace nimble::cli
