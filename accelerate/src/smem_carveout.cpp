#include "smem_carveout.h"

#include <string>
#include <vector>

#include "cuda_status.h"

namespace nimble::accelerate {
namespace {

Status Call(cudaError_t code, const char* what) {
  if (code != cudaSuccess) (void)cudaGetLastError();
  return CudaStatus(code, std::string("shared-memory carveout: ") + what);
}

// Whether `node`'s kernel uses no shared memory, neither dynamic nor static. Unknown (false) where the
// runtime cannot tell: a kernel another library launched through the driver has no runtime entry.
bool UsesNoSharedMemory(cudaGraphNode_t node) {
  cudaKernelNodeParams params{};
  if (cudaGraphKernelNodeGetParams(node, &params) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  if (params.sharedMemBytes > 0) return false;
  cudaFuncAttributes attributes{};
  if (cudaFuncGetAttributes(&attributes, params.func) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return attributes.sharedSizeBytes == 0;
}

StatusOr<int32_t> SetEach(cudaGraph_t graph, int32_t percent) {
  size_t count = 0;
  NIMBLE_RETURN_IF_ERROR(Call(cudaGraphGetNodes(graph, nullptr, &count), "cudaGraphGetNodes"));
  std::vector<cudaGraphNode_t> nodes(count);
  if (count > 0) NIMBLE_RETURN_IF_ERROR(Call(cudaGraphGetNodes(graph, nodes.data(), &count), "cudaGraphGetNodes"));
  nodes.resize(count);
  cudaKernelNodeAttrValue value{};
  value.sharedMemCarveout = static_cast<unsigned int>(percent);
  int32_t eligible = 0;
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type{};
    NIMBLE_RETURN_IF_ERROR(Call(cudaGraphNodeGetType(node, &type), "cudaGraphNodeGetType"));
    if (type != cudaGraphNodeTypeKernel || !UsesNoSharedMemory(node)) continue;
    if (percent != kKeepCarveout) {
      NIMBLE_RETURN_IF_ERROR(
          Call(cudaGraphKernelNodeSetAttribute(node, cudaKernelNodeAttributePreferredSharedMemoryCarveout, &value),
               "cudaGraphKernelNodeSetAttribute"));
    }
    ++eligible;
  }
  return eligible;
}

}  // namespace

StatusOr<int32_t> SetKernelCarveout(cudaGraph_t graph, int32_t percent) {
  if (percent != kKeepCarveout && (percent < 0 || percent > 100)) {
    return InvalidArgument("shared-memory carveout " + std::to_string(percent) +
                           ": a percentage from 0 to 100, or -1 to leave each kernel's own");
  }
  return SetEach(graph, percent);
}

StatusOr<int32_t> SetGraphKernelCarveout(std::uintptr_t raw_graph, int32_t percent) {
  if (raw_graph == 0) {
    return InvalidArgument("no graph to set (a null cudaGraph_t): capture with keep_graph=True and set the carveout "
                           "before instantiate()");
  }
  return SetKernelCarveout(reinterpret_cast<cudaGraph_t>(raw_graph), percent);
}

}  // namespace nimble::accelerate
