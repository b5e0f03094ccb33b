// nimble-accelerate: flags over workflow::Accelerate (ahead-of-time multi-stream CUDA-graph scheduling
// of a TorchScript model), and its table on stdout. One call per process.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "nimble/workflow/accelerate.h"

namespace nimble::cli {

struct AccelerateArgs {
  std::vector<std::string> inputs;
  std::vector<std::string> buckets;  // --bucket, one text per bucket
  std::string mode = "auto";
  bool json = false;
  workflow::AccelerateOptions options;
};

void AddAccelerateOptions(CLI::App& app, AccelerateArgs& args);

// Exit code: 0 done, 1 run-time failure (message on stderr), 2 bad arguments.
int RunAccelerate(AccelerateArgs& args);

// The measured / predicted table, the choice and the diagnosis.
void PrintAccelerateTable(const workflow::AccelerateResult& result, std::ostream& out);
// With several buckets: latency per bucket single vs multi, capture time, and the shared pool against
// a pool per bucket.
void PrintBucketTable(const workflow::AccelerateResult& result, std::ostream& out);

}  // namespace nimble::cli
