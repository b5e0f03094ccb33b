#include "fill_kernel.h"

#include <algorithm>
#include <cstdint>

namespace nimble::accelerate::kernels {
namespace {

constexpr unsigned int kThreads = 256;
constexpr size_t kMaxBlocks = 1024;

// Element i of the fill is column i % width of row i / width.
template <typename T>
__global__ void Fill(char* dst, size_t pitch, unsigned int value, size_t width, size_t height) {
  const size_t count = width * height;
  const T v = static_cast<T>(value);
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    reinterpret_cast<T*>(dst + (i / width) * pitch)[i % width] = v;
  }
}

void* FillFunction(unsigned int element_size) {
  switch (element_size) {
    case 1: return reinterpret_cast<void*>(&Fill<uint8_t>);
    case 2: return reinterpret_cast<void*>(&Fill<uint16_t>);
    case 4: return reinterpret_cast<void*>(&Fill<uint32_t>);
    default: return nullptr;
  }
}

}  // namespace

bool MakeFillNode(const cudaMemsetParams& memset, FillNode* node) {
  void* function = FillFunction(memset.elementSize);
  const size_t count = memset.width * memset.height;
  if (function == nullptr || count == 0 || memset.dst == nullptr) return false;
  node->dst = memset.dst;
  node->pitch = memset.height > 1 ? memset.pitch : memset.width * memset.elementSize;
  node->value = memset.value;
  node->width = memset.width;
  node->height = memset.height;
  node->args[0] = &node->dst;
  node->args[1] = &node->pitch;
  node->args[2] = &node->value;
  node->args[3] = &node->width;
  node->args[4] = &node->height;
  node->params = {};
  node->params.func = function;
  const size_t blocks = std::min(kMaxBlocks, (count + kThreads - 1) / kThreads);
  node->params.gridDim = dim3(static_cast<unsigned int>(blocks));
  node->params.blockDim = dim3(kThreads);
  node->params.sharedMemBytes = 0;
  node->params.kernelParams = node->args;
  node->params.extra = nullptr;
  return true;
}

}  // namespace nimble::accelerate::kernels
