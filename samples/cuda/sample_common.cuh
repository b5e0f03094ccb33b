// Shared by the CUDA samples: checked CUDA calls, kernels of known duration, and a tiny flag parser.
// Every sample prints one line "name: key=value ..." stating what it launched.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

// Every CUDA call is checked: a sample that silently failed would make a test compare against nothing.
#define SAMPLE_CHECK(call)                                                                           \
  do {                                                                                               \
    const cudaError_t sample_err_ = (call);                                                          \
    if (sample_err_ != cudaSuccess) {                                                                \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,                      \
                   cudaGetErrorString(sample_err_));                                                 \
      std::exit(1);                                                                                  \
    }                                                                                                \
  } while (0)

// After a <<<>>> launch, which returns no error itself.
#define SAMPLE_CHECK_LAUNCH() SAMPLE_CHECK(cudaGetLastError())

__device__ inline uint64_t GlobalTimerNs() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Busy-waits for `duration_ns` of wall time on the GPU (one block keeps the other SMs free, so
// kernels on other streams can run alongside).
__global__ void SpinKernel(uint64_t duration_ns) {
  const uint64_t start = GlobalTimerNs();
  while (GlobalTimerNs() - start < duration_ns) {
  }
}

// The cheapest launch there is: what a launch-bound loop measures.
__global__ void EmptyKernel() {}

// `--name value` as an integer, or `fallback` when absent.
inline long long IntFlag(int argc, char** argv, const char* name, long long fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], name) == 0) return std::atoll(argv[i + 1]);
  }
  return fallback;
}

// `--name value` as a string, or `fallback` when absent.
inline const char* StringFlag(int argc, char** argv, const char* name, const char* fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], name) == 0) return argv[i + 1];
  }
  return fallback;
}
