// nimble-run: flags over workflow::RunArtifact (load a model.nimble, capture, replay and time it),
// and its two lines on stdout. One call per process.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "nimble/workflow/run_artifact.h"

namespace nimble::cli {

struct RunArgs {
  std::vector<std::string> inputs;  // empty: the shapes in the artifact's meta
  workflow::RunArtifactOptions options;
};

void AddRunOptions(CLI::App& app, RunArgs& args);

// 0 done, 1 run-time failure (wrong shape, other device or version, no GPU), 2 bad arguments.
int RunArtifact(RunArgs& args);

}  // namespace nimble::cli
