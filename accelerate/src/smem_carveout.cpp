#include "smem_carveout.h"

#include <cuda.h>
#include <cudaTypedefs.h>

#include <mutex>
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
  PFN_cuGraphKernelNodeGetParams_v12000 node_params = nullptr;
  PFN_cuKernelGetFunction_v12000 kernel_function = nullptr;
  PFN_cuFuncGetAttribute_v2020 func_attribute = nullptr;
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

// Resolved once; a failed lookup is not kept, so a later call asks again.
StatusOr<DriverCalls> LoadDriverCalls() {
  static std::mutex mutex;
  static DriverCalls resolved;
  std::lock_guard<std::mutex> lock(mutex);
  if (resolved.func_attribute != nullptr) return resolved;
  DriverCalls calls;
  NIMBLE_RETURN_IF_ERROR(Resolve("cuGraphKernelNodeGetParams", 12000, &calls.node_params));
  NIMBLE_RETURN_IF_ERROR(Resolve("cuKernelGetFunction", 12000, &calls.kernel_function));
  NIMBLE_RETURN_IF_ERROR(Resolve("cuFuncGetAttribute", 2020, &calls.func_attribute));
  resolved = calls;
  return resolved;
}

enum class SharedMemory { kNone, kSome, kUnreadable };

// Whether `node`'s kernel uses shared memory, dynamic or static, or the driver cannot tell.
SharedMemory KernelSharedMemory(const DriverCalls& driver, cudaGraphNode_t node) {
  CUDA_KERNEL_NODE_PARAMS_v2 params{};
  if (driver.node_params(node, &params) != CUDA_SUCCESS) return SharedMemory::kUnreadable;
  if (params.sharedMemBytes > 0) return SharedMemory::kSome;
  CUfunction function = params.func;
  if (function == nullptr && (params.kern == nullptr || driver.kernel_function(&function, params.kern) != CUDA_SUCCESS)) {
    return SharedMemory::kUnreadable;
  }
  int static_bytes = -1;
  if (driver.func_attribute(&static_bytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function) != CUDA_SUCCESS) {
    return SharedMemory::kUnreadable;
  }
  return static_bytes == 0 ? SharedMemory::kNone : SharedMemory::kSome;
}

StatusOr<int32_t> SetEach(cudaGraph_t graph, int32_t percent) {
  NIMBLE_ASSIGN_OR_RETURN(const DriverCalls driver, LoadDriverCalls());
  size_t count = 0;
  NIMBLE_RETURN_IF_ERROR(Call(cudaGraphGetNodes(graph, nullptr, &count), "cudaGraphGetNodes"));
  std::vector<cudaGraphNode_t> nodes(count);
  if (count > 0) NIMBLE_RETURN_IF_ERROR(Call(cudaGraphGetNodes(graph, nodes.data(), &count), "cudaGraphGetNodes"));
  nodes.resize(count);
  cudaKernelNodeAttrValue value{};
  value.sharedMemCarveout = static_cast<unsigned int>(percent);
  int32_t eligible = 0, kernels = 0, unreadable = 0;
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type{};
    NIMBLE_RETURN_IF_ERROR(Call(cudaGraphNodeGetType(node, &type), "cudaGraphNodeGetType"));
    if (type != cudaGraphNodeTypeKernel) continue;
    ++kernels;
    const SharedMemory shared = KernelSharedMemory(driver, node);
    unreadable += shared == SharedMemory::kUnreadable;
    if (shared != SharedMemory::kNone) continue;
    if (percent != kKeepCarveout) {
      NIMBLE_RETURN_IF_ERROR(
          Call(cudaGraphKernelNodeSetAttribute(node, cudaKernelNodeAttributePreferredSharedMemoryCarveout, &value),
               "cudaGraphKernelNodeSetAttribute"));
    }
    ++eligible;
  }
  // Asked to set a carveout and unable to read a single kernel: an error rather than a graph left as it was.
  if (percent != kKeepCarveout && kernels > 0 && unreadable == kernels) {
    return Internal("shared-memory carveout: the driver could read none of the graph's " + std::to_string(kernels) +
                    " kernel nodes (cuGraphKernelNodeGetParams, cuFuncGetAttribute)");
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
