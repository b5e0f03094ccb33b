// A memset node's write done by a kernel of Nimble's own (accelerate/src/memset_nodes.h says why): the
// parameters of a graph kernel node that writes what a cudaMemsetParams describes. Plain CUDA (no
// libtorch), so that nvcc compiles it alone.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace nimble::accelerate::kernels {

// What the kernel node's parameters point to: keep it alive until cudaGraphAddKernelNode has copied them.
struct FillNode {
  void* dst = nullptr;
  size_t pitch = 0;
  unsigned int value = 0;
  size_t width = 0;   // elements per row
  size_t height = 0;  // rows
  void* args[5] = {};
  cudaKernelNodeParams params = {};

  FillNode() = default;
  FillNode(const FillNode&) = delete;  // args and params point into the node itself
  FillNode& operator=(const FillNode&) = delete;
};

// Fills `node` for `memset`: `height` rows of `width` elements of elementSize bytes, rows `pitch` bytes
// apart, each element the low bytes of `value`, as the memset writes them. False (node untouched) when
// elementSize is not 1, 2 or 4 or there is nothing to write.
bool MakeFillNode(const cudaMemsetParams& memset, FillNode* node);

}  // namespace nimble::accelerate::kernels
