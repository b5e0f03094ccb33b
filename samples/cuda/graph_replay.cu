// The fork/join work of concurrent_streams captured once into a CUDA graph and replayed N times,
// each replay inside an NVTX range. Every replayed kernel carries a graph node id and its replay's
// correlation id.
//   graph_replay [--streams 3] [--replays 20] [--kernel-us 50]
#include <nvtx3/nvToolsExt.h>

#include <vector>

#include "sample_common.cuh"

namespace {

cudaGraphExec_t Capture(const std::vector<cudaStream_t>& streams, uint64_t kernel_ns) {
  const size_t k = streams.size();
  std::vector<cudaEvent_t> events(k + 1);
  for (auto& e : events) SAMPLE_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  SAMPLE_CHECK(cudaStreamBeginCapture(streams[0], cudaStreamCaptureModeGlobal));
  SAMPLE_CHECK(cudaEventRecord(events[k], streams[0]));  // fork
  for (size_t i = 1; i < k; ++i) SAMPLE_CHECK(cudaStreamWaitEvent(streams[i], events[k], 0));
  for (size_t i = 0; i < k; ++i) {
    SpinKernel<<<1, 32, 0, streams[i]>>>(kernel_ns);
    SAMPLE_CHECK_LAUNCH();
  }
  for (size_t i = 1; i < k; ++i) {  // join
    SAMPLE_CHECK(cudaEventRecord(events[i], streams[i]));
    SAMPLE_CHECK(cudaStreamWaitEvent(streams[0], events[i], 0));
  }
  cudaGraph_t graph = nullptr;
  SAMPLE_CHECK(cudaStreamEndCapture(streams[0], &graph));
  cudaGraphExec_t exec = nullptr;
  SAMPLE_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  SAMPLE_CHECK(cudaGraphDestroy(graph));
  for (auto& e : events) SAMPLE_CHECK(cudaEventDestroy(e));
  return exec;
}

}  // namespace

int main(int argc, char** argv) {
  const int k = static_cast<int>(IntFlag(argc, argv, "--streams", 3));
  const int replays = static_cast<int>(IntFlag(argc, argv, "--replays", 20));
  const uint64_t kernel_ns = static_cast<uint64_t>(IntFlag(argc, argv, "--kernel-us", 50)) * 1000;
  if (k < 1 || replays < 1) {
    std::fprintf(stderr, "usage: graph_replay [--streams k>=1] [--replays n>=1] [--kernel-us us]\n");
    return 2;
  }
  std::vector<cudaStream_t> streams(static_cast<size_t>(k));
  for (auto& s : streams) SAMPLE_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaGraphExec_t exec = Capture(streams, kernel_ns);
  for (int r = 0; r < replays; ++r) {
    nvtxRangePushA("replay");
    SAMPLE_CHECK(cudaGraphLaunch(exec, streams[0]));
    SAMPLE_CHECK(cudaStreamSynchronize(streams[0]));
    nvtxRangePop();
  }
  SAMPLE_CHECK(cudaGraphExecDestroy(exec));
  for (auto& s : streams) SAMPLE_CHECK(cudaStreamDestroy(s));
  std::printf("graph_replay: kernels=%d graph_kernel_nodes=%d replays=%d nvtx_ranges=%d\n", k * replays, k,
              replays, replays);
  return 0;
}
