// CHECK(call): for the standalone diagnostics in this folder, a failed CUDA runtime call prints where
// and why, and exits 1.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                                 \
  do {                                                                                              \
    cudaError_t err_ = (call);                                                                      \
    if (err_ != cudaSuccess) {                                                                      \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_)); \
      std::exit(1);                                                                                 \
    }                                                                                               \
  } while (0)
