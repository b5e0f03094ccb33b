// Embedding an optimized runner in an application: load a model.nimble written by nimble-accelerate,
// run it on an input of the captured shape, print the top output values and the replay latency.
// Needs only nimble/accelerate/runner.h (no libtorch header); link nimble::accelerate.
//   embed_runner model.nimble
#include <algorithm>
#include <cstdio>
#include <numeric>

#include "nimble/accelerate/runner.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s model.nimble\n", argv[0]);
    return 2;
  }
  // Loading captures the CUDA graph once; every Run after that is a copy-in, a replay and a copy-out.
  nimble::StatusOr<nimble::accelerate::Runner> runner = nimble::accelerate::Runner::Load(argv[1]);
  if (!runner.ok()) {
    std::fprintf(stderr, "embed_runner: %s\n", runner.status().message().c_str());
    return 1;
  }
  std::vector<nimble::accelerate::HostTensor> inputs;
  for (const auto& spec : runner->inputs()) inputs.push_back(nimble::accelerate::HostTensor::Random(spec, 1));
  nimble::StatusOr<std::vector<nimble::accelerate::HostTensor>> outputs = runner->Run(inputs);
  if (!outputs.ok()) {
    std::fprintf(stderr, "embed_runner: %s\n", outputs.status().message().c_str());
    return 1;
  }
  const nimble::accelerate::HostTensor& first = outputs->front();
  std::vector<size_t> order(first.data.size());
  std::iota(order.begin(), order.end(), size_t{0});
  const size_t top = std::min<size_t>(5, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(top), order.end(),
                    [&](size_t a, size_t b) { return first.data[a] > first.data[b]; });
  std::printf("output 0 has shape %s; largest values:\n", nimble::accelerate::ShapeText(first.shape).c_str());
  for (size_t i = 0; i < top; ++i) std::printf("  [%zu] %.5f\n", order[i], first.data[order[i]]);
  nimble::StatusOr<double> latency = runner->MedianLatencyMs(100);
  if (latency.ok()) {
    std::printf("median latency (%s, 100 replays): %.4f ms\n", nimble::RunModeName(runner->meta().mode), *latency);
  }
  return latency.ok() ? 0 : 1;
}
