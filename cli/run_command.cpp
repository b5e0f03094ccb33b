#include "run_command.h"

#include <cstdio>

#include "command.h"

namespace nimble::cli {

void AddRunOptions(CLI::App& app, RunArgs& args) {
  app.add_option("artifact", args.options.artifact, "optimized runner written by nimble-accelerate (model.nimble)")
      ->required();
  app.add_option("--input", args.inputs, "input per forward argument, SHAPE[:DTYPE] (default: the captured inputs)");
  app.add_option("--iters", args.options.iters, "timed replays")->check(CLI::Range(1, 1000000))->capture_default_str();
  app.add_option("--device", args.options.device, "CUDA device (cuda or cuda:N)");
  app.add_flag("--separate-pools", args.options.separate_pools,
               "capture each bucket into a memory pool of its own instead of one shared pool (to compare memory)");
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
  auto mib = [](int64_t bytes) { return static_cast<double>(bytes) / (1 << 20); };
  if (r->bucket_count == 1) {
    std::printf("%s: %s, %d stream(s), %d sync(s); captured in %.1f ms, peak memory %.1f MiB, graph pool %.1f MiB "
                "(above weights and inputs)\n",
                r->artifact.c_str(), RunModeName(r->mode), r->streams, r->syncs, static_cast<double>(r->capture_ns) / 1e6,
                mib(r->peak_memory_bytes), mib(r->graph_pool_bytes));
    std::printf("median latency over %d replays: %.4f ms\n", r->iters, r->median_ms);
    return kExitOk;
  }
  std::printf("%s: %d buckets captured into %s, %.1f MiB of graph pool in all (above weights and inputs)\n",
              r->artifact.c_str(), r->bucket_count, r->shared_pool ? "one shared memory pool" : "a memory pool each",
              mib(r->pool_bytes));
  std::printf("%-28s %-10s %7s %5s %9s %11s %11s %12s\n", "inputs", "mode", "streams", "syncs", "capture", "peak",
              "pool added", "median");
  for (const workflow::RunBucketResult& b : r->buckets) {
    std::printf("%-28s %-10s %7d %5d %6.1f ms %7.1f MiB %7.1f MiB %9.4f ms\n", b.inputs.c_str(), RunModeName(b.mode),
                b.streams, b.syncs, static_cast<double>(b.capture_ns) / 1e6, mib(b.peak_memory_bytes),
                mib(b.graph_pool_bytes), b.median_ms);
  }
  std::printf("median latency over %d replays per bucket\n", r->iters);
  return kExitOk;
}

}  // namespace nimble::cli
