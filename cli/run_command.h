// nimble-run: loads a model.nimble in this process, captures it, replays it --iters times on random
// inputs of the shapes given (which must be the captured ones) and prints the median latency.
// One call per process.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace nimble::cli {

struct RunArgs {
  std::string artifact;
  std::vector<std::string> inputs;  // empty: the shapes in the artifact's meta
  int32_t iters = 100;
  std::string device = "cuda";
};

void AddRunOptions(CLI::App& app, RunArgs& args);

// 0 done, 1 run-time failure (wrong shape, other device or version, no GPU), 2 bad arguments.
int RunArtifact(const RunArgs& args);

}  // namespace nimble::cli
