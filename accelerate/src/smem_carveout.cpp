#include "smem_carveout.h"

#include <cuda.h>

#include <string>
#include <vector>

#include "cuda_status.h"

namespace nimble::accelerate {
namespace {

Status Call(cudaError_t code, const char* what) {
  if (code != cudaSuccess) (void)cudaGetLastError();
  return CudaStatus(code, std::string("shared-memory carveout: ") + what);
}

// The driver calls that read a kernel node whatever launched its kernel. The runtime's own
// (cudaGraphKernelNodeGetParams) fails with cudaErrorInvalidDeviceFunction for a kernel another library
// launched through the driver (cuBLASLt's, cuDNN's), an error that compute-sanitizer reports at every
// such node. Taken through the runtime's entry-point query, so that nothing links libcuda.
struct DriverCalls {
  CUresult (*node_params)(CUgraphNode, CUDA_KERNEL_NODE_PARAMS_v2*) = nullptr;
  CUresult (*kernel_function)(CUfunction*, CUkernel) = nullptr;
  CUresult (*func_attribute)(int*, CUfunction_attribute, CUfunction) = nullptr;
};

template <typename Fn>
Status Resolve(const char* symbol, unsigned int version, Fn* fn) {
  void* address = nullptr;
  cudaDriverEntryPointQueryResult found{};
  const cudaError_t code = cudaGetDriverEntryPointByVersion(symbol, &address, version, cudaEnableDefault, &found);
  if (code != cudaSuccess || found != cudaDriverEntryPointSuccess || address == nullptr) {
    (void)cudaGetLastError();
    return Internal(std::string("shared-memory carveout: the driver has no ") + symbol + " (CUDA " +
                    std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10) + ")");
  }
  *fn = reinterpret_cast<Fn>(address);
  return OkStatus();
}

StatusOr<DriverCalls> LoadDriverCalls() {
  DriverCalls calls;
  NIMBLE_RETURN_IF_ERROR(Resolve("cuGraphKernelNodeGetParams", 12000, &calls.node_params));
  NIMBLE_RETURN_IF_ERROR(Resolve("cuKernelGetFunction", 12000, &calls.kernel_function));
  NIMBLE_RETURN_IF_ERROR(Resolve("cuFuncGetAttribute", 2020, &calls.func_attribute));
  return calls;
}

// Whether `node`'s kernel uses no shared memory, neither dynamic nor static; false where the driver
// cannot tell.
bool UsesNoSharedMemory(const DriverCalls& driver, cudaGraphNode_t node) {
  CUDA_KERNEL_NODE_PARAMS_v2 params{};
  if (driver.node_params(node, &params) != CUDA_SUCCESS || params.sharedMemBytes > 0) return false;
  CUfunction function = params.func;
  if (function == nullptr && (params.kern == nullptr || driver.kernel_function(&function, params.kern) != CUDA_SUCCESS)) {
    return false;
  }
  int static_bytes = -1;
  if (driver.func_attribute(&static_bytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function) != CUDA_SUCCESS) return false;
  return static_bytes == 0;
}

StatusOr<int32_t> SetEach(cudaGraph_t graph, int32_t percent) {
  static const StatusOr<DriverCalls> driver = LoadDriverCalls();
  if (!driver.ok()) return driver.status();
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
    if (type != cudaGraphNodeTypeKernel || !UsesNoSharedMemory(*driver, node)) continue;
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
