// k independent kernels of known duration on k streams, forked from and joined to the first stream
// by events, repeated in NVTX-marked iterations after unmarked warm-up rounds. Within an iteration
// the k kernels overlap; between iterations the host synchronizes.
//   concurrent_streams [--streams 4] [--iterations 10] [--warmup 1] [--kernel-us 200]
#include <nvtx3/nvToolsExt.h>

#include <vector>

#include "sample_common.cuh"

namespace {

struct Streams {
  std::vector<cudaStream_t> streams;
  std::vector<cudaEvent_t> joins;  // one per side stream
  cudaEvent_t fork = nullptr;
};

Streams Create(int k) {
  Streams s;
  s.streams.resize(static_cast<size_t>(k));
  s.joins.resize(static_cast<size_t>(k));
  for (int i = 0; i < k; ++i) {
    SAMPLE_CHECK(cudaStreamCreateWithFlags(&s.streams[i], cudaStreamNonBlocking));
    SAMPLE_CHECK(cudaEventCreateWithFlags(&s.joins[i], cudaEventDisableTiming));
  }
  SAMPLE_CHECK(cudaEventCreateWithFlags(&s.fork, cudaEventDisableTiming));
  return s;
}

// One round: fork from stream 0, one kernel per stream, join back into stream 0, wait for it.
void Round(const Streams& s, uint64_t kernel_ns) {
  const size_t k = s.streams.size();
  SAMPLE_CHECK(cudaEventRecord(s.fork, s.streams[0]));
  for (size_t i = 1; i < k; ++i) SAMPLE_CHECK(cudaStreamWaitEvent(s.streams[i], s.fork, 0));
  for (size_t i = 0; i < k; ++i) {
    SpinKernel<<<1, 32, 0, s.streams[i]>>>(kernel_ns);
    SAMPLE_CHECK_LAUNCH();
  }
  for (size_t i = 1; i < k; ++i) {
    SAMPLE_CHECK(cudaEventRecord(s.joins[i], s.streams[i]));
    SAMPLE_CHECK(cudaStreamWaitEvent(s.streams[0], s.joins[i], 0));
  }
  SAMPLE_CHECK(cudaStreamSynchronize(s.streams[0]));
}

void Destroy(Streams& s) {
  for (size_t i = 0; i < s.streams.size(); ++i) {
    SAMPLE_CHECK(cudaEventDestroy(s.joins[i]));
    SAMPLE_CHECK(cudaStreamDestroy(s.streams[i]));
  }
  SAMPLE_CHECK(cudaEventDestroy(s.fork));
}

}  // namespace

int main(int argc, char** argv) {
  const int k = static_cast<int>(IntFlag(argc, argv, "--streams", 4));
  const int iterations = static_cast<int>(IntFlag(argc, argv, "--iterations", 10));
  const int warmup = static_cast<int>(IntFlag(argc, argv, "--warmup", 1));
  const uint64_t kernel_ns = static_cast<uint64_t>(IntFlag(argc, argv, "--kernel-us", 200)) * 1000;
  if (k < 1 || iterations < 0 || warmup < 0) {
    std::fprintf(stderr, "usage: concurrent_streams [--streams k>=1] [--iterations n] [--warmup w]\n");
    return 2;
  }
  Streams s = Create(k);
  for (int w = 0; w < warmup; ++w) Round(s, kernel_ns);
  for (int it = 0; it < iterations; ++it) {
    nvtxRangePushA("iteration");
    Round(s, kernel_ns);
    nvtxRangePop();
  }
  Destroy(s);
  std::printf("concurrent_streams: kernels=%d streams=%d nvtx_ranges=%d iterations=%d warmup_kernels=%d kernel_us=%llu\n",
              k * (warmup + iterations), k, iterations, iterations, k * warmup,
              static_cast<unsigned long long>(kernel_ns / 1000));
  return 0;
}
