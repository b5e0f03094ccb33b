// What a memset node costs inside a CUDA graph replay, timed without any tracing. cuDNN's fused attention
// zeroes a 4-byte counter with cudaMemsetAsync before each launch, so a captured transformer holds one
// memset node per layer. Four graphs of N kernels on one stream, timed in alternating rounds:
//   plain:        N kernels (96 blocks of 128 threads, about a microsecond each);
//   memset:       the same with a 4-byte cudaMemsetAsync before every 8th kernel;
//   fill kernel:  the same with a one-thread kernel writing those 4 bytes instead;
//   memset, smem: the memset before a kernel with 128 KiB of dynamic shared memory (as the attention is).
// Each median is of R replays, each timed alone between two events on an idle GPU (as nimble-run times a
// call), and of R replays launched back to back (the mean of one stream of them).
//     nvcc -O2 -arch=sm_90 -o memset_node_cost bench/diag/memset_node_cost.cu && ./memset_node_cost
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuda_check.h"

__global__ void Tiny(float* x, int spin) {
  float a = x[blockIdx.x * blockDim.x + threadIdx.x];
  for (int i = 0; i < spin; ++i) a = a * 1.0001f + 1e-4f;
  x[blockIdx.x * blockDim.x + threadIdx.x] = a;
}

__global__ void WithSmem(float* x, int spin) {
  extern __shared__ float tile[];
  tile[threadIdx.x] = x[blockIdx.x * blockDim.x + threadIdx.x];
  float a = tile[threadIdx.x];
  for (int i = 0; i < spin; ++i) a = a * 1.0001f + 1e-4f;
  x[blockIdx.x * blockDim.x + threadIdx.x] = a;
}

__global__ void Fill(unsigned* p, unsigned value) { *p = value; }

enum class Kind { kPlain, kMemset, kFill, kMemsetSmem, kPlainSmem };
const char* Name(Kind k) {
  switch (k) {
    case Kind::kPlain: return "plain";
    case Kind::kMemset: return "memset";
    case Kind::kFill: return "fill kernel";
    case Kind::kMemsetSmem: return "memset, smem";
    case Kind::kPlainSmem: return "plain, smem";
  }
  return "?";
}

constexpr int kSmem = 128 * 1024;

cudaGraphExec_t Capture(Kind kind, int n, float* buf, unsigned* counter, cudaStream_t s) {
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  for (int k = 0; k < n; ++k) {
    const bool marked = k % 8 == 7;
    if (marked && (kind == Kind::kMemset || kind == Kind::kMemsetSmem)) CHECK(cudaMemsetAsync(counter, 0, 4, s));
    if (marked && kind == Kind::kFill) Fill<<<1, 1, 0, s>>>(counter, 0);
    if (marked && (kind == Kind::kMemsetSmem || kind == Kind::kPlainSmem)) {
      WithSmem<<<96, 128, kSmem, s>>>(buf, 200);
    } else {
      Tiny<<<96, 128, 0, s>>>(buf, 200);
    }
    CHECK(cudaGetLastError());
  }
  cudaGraph_t g;
  CHECK(cudaStreamEndCapture(s, &g));
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, g, 0));
  CHECK(cudaGraphDestroy(g));
  return exec;
}

// {alone, streamed}: medians of `reps` replays each timed alone, and the mean of `reps` back to back.
std::pair<double, double> TimeUs(cudaGraphExec_t g, cudaStream_t s, int reps) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int i = 0; i < 20; ++i) CHECK(cudaGraphLaunch(g, s));
  CHECK(cudaStreamSynchronize(s));
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    CHECK(cudaEventRecord(a, s));
    CHECK(cudaGraphLaunch(g, s));
    CHECK(cudaEventRecord(b, s));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms * 1e3);
  }
  std::sort(t.begin(), t.end());
  CHECK(cudaEventRecord(a, s));
  for (int r = 0; r < reps; ++r) CHECK(cudaGraphLaunch(g, s));
  CHECK(cudaEventRecord(b, s));
  CHECK(cudaEventSynchronize(b));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, a, b));
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  return {t[t.size() / 2], ms * 1e3 / reps};
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 96;
  const int reps = 300, rounds = 3;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  CHECK(cudaFuncSetAttribute(WithSmem, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  float* buf;
  unsigned* counter;
  CHECK(cudaMalloc(&buf, 96 * 128 * sizeof(float)));
  CHECK(cudaMemset(buf, 0, 96 * 128 * sizeof(float)));
  CHECK(cudaMalloc(&counter, 256));
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const Kind kinds[] = {Kind::kPlain, Kind::kMemset, Kind::kFill, Kind::kPlainSmem, Kind::kMemsetSmem};
  std::vector<cudaGraphExec_t> graphs;
  for (Kind k : kinds) graphs.push_back(Capture(k, n, buf, counter, s));
  const int marked = n / 8;
  std::printf("%s; %d kernels, %d of them marked; medians of %d replays timed alone, means of %d streamed (us)\n",
              prop.name, n, marked, reps, reps);
  for (int round = 0; round < rounds; ++round) {
    double plain_alone = 0, plain_streamed = 0, smem_alone = 0, smem_streamed = 0;
    for (size_t i = 0; i < graphs.size(); ++i) {
      const auto [alone, streamed] = TimeUs(graphs[i], s, reps);
      if (kinds[i] == Kind::kPlain) plain_alone = alone, plain_streamed = streamed;
      if (kinds[i] == Kind::kPlainSmem) smem_alone = alone, smem_streamed = streamed;
      const bool smem = kinds[i] == Kind::kMemsetSmem;
      const double base_alone = smem ? smem_alone : plain_alone, base_streamed = smem ? smem_streamed : plain_streamed;
      std::printf("round %d  %-13s alone %8.2f (%+6.2f per mark)  streamed %8.2f (%+6.2f per mark)\n", round, Name(kinds[i]),
                  alone, (alone - base_alone) / marked, streamed, (streamed - base_streamed) / marked);
    }
  }
  for (cudaGraphExec_t g : graphs) CHECK(cudaGraphExecDestroy(g));
  return 0;
}
