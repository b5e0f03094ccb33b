// Launch-bound loops for measuring what profiling adds: many tiny empty kernels launched one by one
// (--mode launch), or the same kernels captured into one CUDA graph and replayed (--mode graph).
// Prints the wall time per kernel (and per replay), measured from the first launch to the final sync,
// and how much of it the final sync took (sync_us).
// --kernel-ns N makes every kernel spin for N ns instead of returning at once (a more realistic graph).
//   launch_loop [--mode launch|graph] [--kernels 100000] [--graph-kernels 100] [--warmup 1000] [--kernel-ns 0]
#include <algorithm>
#include <chrono>
#include <cstring>

#include "sample_common.cuh"

namespace {

uint64_t g_kernel_ns = 0;  // 0: EmptyKernel

void LaunchOne(cudaStream_t s) {
  if (g_kernel_ns == 0) {
    EmptyKernel<<<1, 1, 0, s>>>();
  } else {
    SpinKernel<<<1, 32, 0, s>>>(g_kernel_ns);
  }
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void LaunchLoop(cudaStream_t s, long long kernels, long long warmup) {
  for (long long i = 0; i < warmup; ++i) LaunchOne(s);
  SAMPLE_CHECK_LAUNCH();
  SAMPLE_CHECK(cudaStreamSynchronize(s));
  const auto start = std::chrono::steady_clock::now();
  for (long long i = 0; i < kernels; ++i) LaunchOne(s);
  const double launched_us = SecondsSince(start) * 1e6;
  SAMPLE_CHECK_LAUNCH();
  SAMPLE_CHECK(cudaStreamSynchronize(s));
  const double us = SecondsSince(start) * 1e6;
  // sync_us: from the last launch's return to the end of the final synchronize.
  std::printf("launch_loop: mode=launch kernels=%lld wall_us=%.1f us_per_kernel=%.4f sync_us=%.1f\n", kernels, us,
              us / static_cast<double>(kernels), us - launched_us);
}

void GraphLoop(cudaStream_t s, long long kernels, long long per_graph, long long warmup) {
  cudaGraph_t graph = nullptr;
  SAMPLE_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  for (long long i = 0; i < per_graph; ++i) LaunchOne(s);
  SAMPLE_CHECK_LAUNCH();
  SAMPLE_CHECK(cudaStreamEndCapture(s, &graph));
  cudaGraphExec_t exec = nullptr;
  SAMPLE_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  const long long replays = (kernels + per_graph - 1) / per_graph;
  for (long long i = 0; i < std::max(1LL, warmup / per_graph); ++i) SAMPLE_CHECK(cudaGraphLaunch(exec, s));
  SAMPLE_CHECK(cudaStreamSynchronize(s));
  const auto start = std::chrono::steady_clock::now();
  for (long long r = 0; r < replays; ++r) SAMPLE_CHECK(cudaGraphLaunch(exec, s));
  const double launched_us = SecondsSince(start) * 1e6;
  SAMPLE_CHECK(cudaStreamSynchronize(s));
  const double us = SecondsSince(start) * 1e6;
  std::printf("launch_loop: mode=graph kernels=%lld replays=%lld kernels_per_graph=%lld wall_us=%.1f "
              "us_per_replay=%.3f us_per_kernel=%.4f sync_us=%.1f\n",
              replays * per_graph, replays, per_graph, us, us / static_cast<double>(replays),
              us / static_cast<double>(replays * per_graph), us - launched_us);
  SAMPLE_CHECK(cudaGraphExecDestroy(exec));
  SAMPLE_CHECK(cudaGraphDestroy(graph));
}

}  // namespace

int main(int argc, char** argv) {
  const char* mode = StringFlag(argc, argv, "--mode", "launch");
  const long long kernels = IntFlag(argc, argv, "--kernels", 100000);
  const long long per_graph = IntFlag(argc, argv, "--graph-kernels", 100);
  const long long warmup = IntFlag(argc, argv, "--warmup", 1000);
  g_kernel_ns = static_cast<uint64_t>(IntFlag(argc, argv, "--kernel-ns", 0));
  if (kernels < 1 || per_graph < 1 || (std::strcmp(mode, "launch") != 0 && std::strcmp(mode, "graph") != 0)) {
    std::fprintf(stderr, "usage: launch_loop [--mode launch|graph] [--kernels n] [--graph-kernels g]\n");
    return 2;
  }
  cudaStream_t s;
  SAMPLE_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  if (std::strcmp(mode, "launch") == 0) {
    LaunchLoop(s, kernels, warmup);
  } else {
    GraphLoop(s, kernels, per_graph, warmup);
  }
  SAMPLE_CHECK(cudaStreamDestroy(s));
  return 0;
}
