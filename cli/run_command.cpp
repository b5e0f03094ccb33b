// nimble-run on top of nimble::Runner: the same path an embedding application takes.
#include "run_command.h"

#include <cstdio>
#include <iostream>

#include "accelerate_inputs.h"
#include "nimble/accelerate/cuda_devices.h"
#include "nimble/accelerate/runner.h"

namespace nimble::cli {

void AddRunOptions(CLI::App& app, RunArgs& args) {
  app.add_option("artifact", args.artifact, "optimized runner written by nimble-accelerate (model.nimble)")
      ->required();
  app.add_option("--input", args.inputs, "input shape per forward argument (default: the captured shapes)");
  app.add_option("--iters", args.iters, "timed replays")->check(CLI::Range(1, 1000000));
  app.add_option("--device", args.device, "CUDA device (cuda or cuda:N)");
}

int RunArtifact(const RunArgs& args) {
  constexpr const char* kTool = "nimble-run";
  auto shapes = ParseShapes(args.inputs);
  if (!shapes.ok()) {
    PrintError(kTool, shapes.status());
    return kAotExitUsage;
  }
  if (CudaDeviceCount() == 0) {
    return PrintError(kTool, Unavailable("no CUDA device: " + args.artifact + " replays a CUDA graph and needs a GPU"));
  }
  RunnerOptions options;
  options.device = args.device;
  auto runner = Runner::Load(args.artifact, options);
  if (!runner.ok()) return PrintError(kTool, runner.status());
  std::vector<HostTensor> inputs;
  const auto& wanted = shapes->empty() ? runner->input_shapes() : *shapes;
  for (size_t i = 0; i < wanted.size(); ++i) inputs.push_back(HostTensor::Random(wanted[i], 42 + i));
  auto outputs = runner->Run(inputs);
  if (!outputs.ok()) return PrintError(kTool, outputs.status());
  auto median = runner->MedianLatencyMs(args.iters);
  if (!median.ok()) return PrintError(kTool, median.status());
  const CaptureStats& stats = runner->capture_stats();
  std::printf("%s: %s, %d stream(s), %d sync(s); captured in %.1f ms, peak memory %.1f MiB\n", args.artifact.c_str(),
              runner->meta().mode.c_str(), stats.num_streams, stats.num_events, static_cast<double>(stats.capture_ns) / 1e6,
              static_cast<double>(stats.peak_memory_bytes) / (1 << 20));
  std::printf("median latency over %d replays: %.4f ms\n", args.iters, *median);
  return kAotExitOk;
}

}  // namespace nimble::cli
