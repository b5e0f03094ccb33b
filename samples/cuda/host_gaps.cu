// GPU idle time with three known causes, on one stream:
//  1. a chain of kernels launched with deliberate host sleeps in between (host did not launch in time);
//  2. a long kernel the host waits for with cudaStreamSynchronize, then sleeps (synchronization);
//  3. a pageable host-to-device copy on the same stream before the last kernel (memory copy).
//   host_gaps [--kernels 8] [--kernel-us 50] [--gap-us 1000] [--copy-mib 16]
#include <unistd.h>

#include <vector>

#include "sample_common.cuh"

int main(int argc, char** argv) {
  const int kernels = static_cast<int>(IntFlag(argc, argv, "--kernels", 8));
  const long long kernel_us = IntFlag(argc, argv, "--kernel-us", 50);
  const long long gap_us = IntFlag(argc, argv, "--gap-us", 1000);
  const size_t copy_bytes = static_cast<size_t>(IntFlag(argc, argv, "--copy-mib", 16)) << 20;
  if (kernels < 2 || gap_us <= kernel_us) {
    std::fprintf(stderr, "usage: host_gaps [--kernels n>=2] [--kernel-us k] [--gap-us g>k]\n");
    return 2;
  }
  cudaStream_t s;
  SAMPLE_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  void* device = nullptr;
  SAMPLE_CHECK(cudaMalloc(&device, copy_bytes));
  std::vector<char> host(copy_bytes, 1);  // pageable on purpose: the copy blocks the host

  for (int i = 0; i < kernels; ++i) {  // 1. host gaps
    SpinKernel<<<1, 32, 0, s>>>(static_cast<uint64_t>(kernel_us) * 1000);
    SAMPLE_CHECK_LAUNCH();
    usleep(static_cast<useconds_t>(gap_us));
  }
  SpinKernel<<<1, 32, 0, s>>>(static_cast<uint64_t>(10 * gap_us) * 1000);  // 2. long kernel, then sync
  SAMPLE_CHECK_LAUNCH();
  SAMPLE_CHECK(cudaStreamSynchronize(s));
  usleep(static_cast<useconds_t>(gap_us));
  // 3. the copy: stream-ordered, so the last kernel waits for it (a plain cudaMemcpy from pageable
  // memory may return before its DMA ends, and the legacy stream would not order the kernel after it).
  SAMPLE_CHECK(cudaMemcpyAsync(device, host.data(), copy_bytes, cudaMemcpyHostToDevice, s));
  SpinKernel<<<1, 32, 0, s>>>(static_cast<uint64_t>(kernel_us) * 1000);
  SAMPLE_CHECK_LAUNCH();
  SAMPLE_CHECK(cudaStreamSynchronize(s));
  SAMPLE_CHECK(cudaFree(device));
  SAMPLE_CHECK(cudaStreamDestroy(s));
  std::printf("host_gaps: kernels=%d streams=1 memcpys=1 memcpy_bytes=%zu stream_syncs=2 host_gaps=%d "
              "gap_us=%lld kernel_us=%lld\n",
              kernels + 2, copy_bytes, kernels, gap_us, kernel_us);
  return 0;
}
