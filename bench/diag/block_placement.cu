// Where the blocks of a small-grid kernel land when it starts beside other kernels, and what that does to
// its duration. A latency-bound kernel of few blocks (64 threads each, a chain of FMAs per thread, like
// cuDNN's small-tile fp32 implicit GEMMs at batch 1) is run alone and then launched on a second stream just
// after another kernel started on the first; each block writes the SM it ran on, and the kernel's own
// duration is taken from the earliest block start to the latest block end (globaltimer), so time waiting
// for a free slot before the first block starts is not counted, as in a CUPTI kernel record.
//     nvcc -O2 -arch=sm_90 -o block_placement bench/diag/block_placement.cu && ./block_placement
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "block_clock.cuh"
#include "cuda_check.h"

// Each block: `iters` dependent FMAs per thread; block 0..n-1 records its SM, start and end.
__global__ void Chain(int iters, float* sink, unsigned* sm, unsigned long long* start, unsigned long long* end) {
  const unsigned long long t0 = GlobalNs();
  float a = threadIdx.x * 1e-3f, b = 1.0001f, c = 1e-4f;
  for (int i = 0; i < iters; ++i) a = fmaf(a, b, c);
  if (a == 12345.f) sink[threadIdx.x] = a;  // keeps the chain alive
  __syncthreads();
  if (threadIdx.x == 0) {
    sm[blockIdx.x] = SmId();
    start[blockIdx.x] = t0;
    end[blockIdx.x] = GlobalNs();
  }
}

// A filler: `blocks` blocks of `threads` threads, each spinning for `spin_ns`; dynamic shared memory as
// launched (unused), to load SMs by shared memory rather than threads.
__global__ void Filler(unsigned long long spin_ns) {
  const unsigned long long t0 = GlobalNs();
  while (GlobalNs() - t0 < spin_ns) {
  }
}

struct Sample {
  double us;
  int sms;
  int most_per_sm;
};

Sample Read(int blocks, unsigned* d_sm, unsigned long long* d_start, unsigned long long* d_end) {
  std::vector<unsigned> sm(blocks);
  std::vector<unsigned long long> s(blocks), e(blocks);
  CHECK(cudaMemcpy(sm.data(), d_sm, blocks * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(s.data(), d_start, blocks * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(e.data(), d_end, blocks * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  std::vector<int> per(1024, 0);
  for (unsigned id : sm) ++per[id % 1024];
  Sample out;
  out.us = (*std::max_element(e.begin(), e.end()) - *std::min_element(s.begin(), s.end())) / 1e3;
  out.sms = static_cast<int>(std::set<unsigned>(sm.begin(), sm.end()).size());
  out.most_per_sm = *std::max_element(per.begin(), per.end());
  return out;
}

// How loaded the SMs must be before a small kernel's blocks are packed: a long filler of one block per SM
// of T threads (or of 128 threads and S bytes of shared memory), then 32 and 84 chain blocks beside it.
void Sweep(int iters, float* sink, unsigned* d_sm, unsigned long long* d_start, unsigned long long* d_end,
           cudaStream_t s1, cudaStream_t s2) {
  CHECK(cudaFuncSetAttribute(Filler, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
  struct Load {
    int blocks, threads, smem_kb;
  };
  std::vector<Load> loads;
  for (int t : {128, 256, 384, 512, 640, 768, 896, 1024}) loads.push_back({132, t, 0});
  for (int kb : {32, 64, 100, 128, 160, 200}) loads.push_back({132, 128, kb});
  for (int b : {264, 396}) loads.push_back({b, 256, 0});
  loads.push_back({264, 768, 0});
  for (const Load& l : loads) {
    for (int blocks : {32, 84}) {
      std::vector<Sample> samples;
      for (int r = 0; r < 8; ++r) {
        CHECK(cudaDeviceSynchronize());
        Filler<<<l.blocks, l.threads, l.smem_kb * 1024, s1>>>(100000);  // 100 us
        CHECK(cudaGetLastError());
        Chain<<<blocks, 64, 0, s2>>>(iters, sink, d_sm, d_start, d_end);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        if (r > 0) samples.push_back(Read(blocks, d_sm, d_start, d_end));
      }
      std::sort(samples.begin(), samples.end(), [](const Sample& a, const Sample& b) { return a.us < b.us; });
      const Sample& m = samples[samples.size() / 2];
      std::printf("filler %3d blocks x %4d threads, %3d KiB shared: %2d chain blocks median %7.1f us on %3d SMs, "
                  "at most %2d on one\n",
                  l.blocks, l.threads, l.smem_kb, blocks, m.us, m.sms, m.most_per_sm);
    }
  }
}

int main(int argc, char** argv) {
  const int iters = argc > 1 ? std::atoi(argv[1]) : 200000;
  const bool sweep = argc > 2 && std::string(argv[2]) == "sweep";
  const int reps = 15;
  int sm_count = 0;
  CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, 0));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, %d SMs; chain kernel: 64 threads a block, %d dependent FMAs a thread\n", prop.name, sm_count, iters);
  const int max_blocks = 4096;
  float* sink;
  unsigned* d_sm;
  unsigned long long *d_start, *d_end;
  CHECK(cudaMalloc(&sink, 1024 * sizeof(float)));
  CHECK(cudaMalloc(&d_sm, max_blocks * sizeof(unsigned)));
  CHECK(cudaMalloc(&d_start, max_blocks * sizeof(unsigned long long)));
  CHECK(cudaMalloc(&d_end, max_blocks * sizeof(unsigned long long)));
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));

  struct Case {
    const char* name;
    int filler_blocks;    // 0: alone
    int filler_threads;
    double filler_us;
  };
  const Case cases[] = {
      {"alone", 0, 0, 0},
      {"after a 3 us filler of 392 blocks x 128 threads", 392, 128, 3},
      {"after a 3 us filler of 392 blocks x 1024 threads", 392, 1024, 3},
      {"after a 20 us filler of 132 blocks x 1024 threads", 132, 1024, 20},
      {"after a 20 us filler of 264 blocks x 1024 threads", 264, 1024, 20},
      {"after a 20 us filler of 66 blocks x 1024 threads", 66, 1024, 20},
      {"beside a 200 us filler of 132 blocks x 128 threads", 132, 128, 200},
  };
  if (sweep) {
    Sweep(iters, sink, d_sm, d_start, d_end, s1, s2);
    return 0;
  }
  for (int blocks : {32, 84, 132}) {
    for (const Case& c : cases) {
      std::vector<Sample> samples;
      for (int r = 0; r < reps + 1; ++r) {
        CHECK(cudaDeviceSynchronize());
        if (c.filler_blocks > 0) {
          Filler<<<c.filler_blocks, c.filler_threads, 0, s1>>>(static_cast<unsigned long long>(c.filler_us * 1e3));
          CHECK(cudaGetLastError());
        }
        Chain<<<blocks, 64, 0, s2>>>(iters, sink, d_sm, d_start, d_end);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        if (r > 0) samples.push_back(Read(blocks, d_sm, d_start, d_end));  // the first is a warm-up
      }
      std::sort(samples.begin(), samples.end(), [](const Sample& a, const Sample& b) { return a.us < b.us; });
      const Sample& m = samples[samples.size() / 2];
      int min_sms = samples[0].sms, max_most = 0;
      for (const Sample& s : samples) {
        min_sms = std::min(min_sms, s.sms);
        max_most = std::max(max_most, s.most_per_sm);
      }
      std::printf("%4d blocks %-52s median %8.1f us (min %8.1f, max %8.1f); SMs used: median %3d, fewest %3d; "
                  "most blocks on one SM %d\n",
                  blocks, c.name, m.us, samples.front().us, samples.back().us, m.sms, min_sms, max_most);
    }
  }
  return 0;
}
