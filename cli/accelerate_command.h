// nimble-accelerate: ahead-of-time scheduling of a TorchScript model, end to end — front end, op
// times, stream assignment, rewrite, capture of single- and multi-stream graphs, correctness check
// against the unmodified model, timing beside the libtorch baseline, prediction, table, run database
// and model.nimble. One call per process (it owns the GPU while it runs).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace nimble::cli {

struct AccelerateArgs {
  std::string model;
  std::vector<std::string> inputs;
  std::string output;
  std::string db;
  int32_t iters = 200;
  int32_t max_streams = 0;  // 0: as many as the assignment wants
  bool single_stream_only = false;
  bool allow_eager_fallback = false;
  // The front end's cuDNN conv+relu fusions (FrontEndOptions::cuda_fusions); off by default.
  bool cuda_fusions = false;
  // TF32 convolutions, PyTorch's default (kFloat32PrecisionTf32); off: IEEE fp32 everywhere.
  bool tf32 = false;
  std::string mode = "auto";  // which schedule model.nimble runs: auto (measured), single, multi
  std::string device = "cuda";
  std::string command_line;
};

void AddAccelerateOptions(CLI::App& app, AccelerateArgs& args);

// Exit code: 0 done, 1 run-time failure (message on stderr), 2 bad arguments.
int RunAccelerate(const AccelerateArgs& args);

}  // namespace nimble::cli
