#include "run_command.h"

#include <cstdio>

#include "command.h"

namespace nimble::cli {

void AddRunOptions(CLI::App& app, RunArgs& args) {
  app.add_option("artifact", args.options.artifact, "optimized runner written by nimble-accelerate (model.nimble)")
      ->required();
  app.add_option("--input", args.inputs, "input per forward argument, SHAPE[:DTYPE] (default: the captured inputs)");
  app.add_option("--iters", args.options.iters, "timed replays")->check(CLI::Range(1, 1000000));
  app.add_option("--device", args.options.device, "CUDA device (cuda or cuda:N)");
}

int RunArtifact(RunArgs& args) {
  constexpr const char* kTool = "nimble-run";
  auto shapes = workflow::ParseInputSpecs(args.inputs);
  if (!shapes.ok()) {
    PrintError(kTool, shapes.status());
    return kExitUsage;
  }
  args.options.inputs = std::move(*shapes);
  auto r = workflow::RunArtifact(args.options);
  if (!r.ok()) return PrintError(kTool, r.status());
  std::printf("%s: %s, %d stream(s), %d sync(s); captured in %.1f ms, peak memory %.1f MiB, graph pool %.1f MiB "
              "(above weights and inputs)\n",
              r->artifact.c_str(), RunModeName(r->mode), r->streams, r->syncs, static_cast<double>(r->capture_ns) / 1e6,
              static_cast<double>(r->peak_memory_bytes) / (1 << 20), static_cast<double>(r->graph_pool_bytes) / (1 << 20));
  std::printf("median latency over %d replays: %.4f ms\n", r->iters, r->median_ms);
  return kExitOk;
}

}  // namespace nimble::cli
