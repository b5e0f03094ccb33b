// The shared-memory carveout pass (accelerate/src/smem_carveout.h) on a built graph: a kernel using no
// shared memory is given the carveout, one launched with dynamic shared memory and a memset node are
// left, kKeepCarveout counts without setting, bad percentages are refused, and the graph still writes
// what it wrote. Skips without a CUDA device (the argument check runs everywhere).
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

#include "fill_kernel.h"
#include "nimble/accelerate/cuda_devices.h"
#include "smem_carveout.h"

namespace nimble::testing {
namespace {

using ::nimble::accelerate::kKeepCarveout;
namespace kernels = ::nimble::accelerate::kernels;
using ::nimble::accelerate::SetKernelCarveout;

cudaMemsetParams Memset(void* dst, unsigned value, size_t bytes) {
  cudaMemsetParams m{};
  m.dst = dst;
  m.value = value;
  m.elementSize = 1;
  m.width = bytes;
  m.height = 1;
  return m;
}

unsigned CarveoutOf(cudaGraphNode_t node) {
  cudaKernelNodeAttrValue value{};
  EXPECT_EQ(cudaGraphKernelNodeGetAttribute(node, cudaKernelNodeAttributePreferredSharedMemoryCarveout, &value),
            cudaSuccess);
  return value.sharedMemCarveout;
}

// Three nodes in a row over `device`: a fill kernel with no shared memory, the same kernel launched with
// 1 KiB of dynamic shared memory (which it does not touch), and a memset node.
struct Graph {
  cudaGraph_t graph = nullptr;
  cudaGraphNode_t plain = nullptr, with_shared = nullptr, memset = nullptr;
  kernels::FillNode first, second;

  explicit Graph(uint8_t* device) {
    EXPECT_EQ(cudaGraphCreate(&graph, 0), cudaSuccess);
    EXPECT_TRUE(kernels::MakeFillNode(Memset(device, 0x11, 256), &first));
    EXPECT_TRUE(kernels::MakeFillNode(Memset(device + 128, 0x22, 256), &second));
    second.params.sharedMemBytes = 1024;
    EXPECT_EQ(cudaGraphAddKernelNode(&plain, graph, nullptr, 0, &first.params), cudaSuccess);
    EXPECT_EQ(cudaGraphAddKernelNode(&with_shared, graph, &plain, 1, &second.params), cudaSuccess);
    const cudaMemsetParams m = Memset(device + 300, 0x33, 16);
    EXPECT_EQ(cudaGraphAddMemsetNode(&memset, graph, &with_shared, 1, &m), cudaSuccess);
  }
  ~Graph() { EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess); }
};

std::vector<uint8_t> LaunchOnce(cudaGraph_t graph, uint8_t* device) {
  std::vector<uint8_t> out(512);
  EXPECT_EQ(cudaMemset(device, 0x7f, out.size()), cudaSuccess);
  cudaGraphExec_t exec = nullptr;
  EXPECT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  EXPECT_EQ(cudaGraphLaunch(exec, nullptr), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(out.data(), device, out.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
  return out;
}

TEST(SmemCarveoutTest, BadPercentagesAreRefusedBeforeTheGraphIsRead) {
  for (int32_t percent : {-2, 101}) {
    StatusOr<int32_t> set = SetKernelCarveout(static_cast<cudaGraph_t>(nullptr), percent);
    ASSERT_FALSE(set.ok());
    EXPECT_EQ(set.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(set.status().message().find(std::to_string(percent)), std::string::npos) << set.status().message();
  }
}

TEST(SmemCarveoutGpuTest, OnlyKernelsWithoutSharedMemoryAreGivenTheCarveout) {
  if (accelerate::CudaDeviceCount() == 0) GTEST_SKIP() << "no CUDA device";
  uint8_t* device = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&device), 512), cudaSuccess);
  Graph reference(device);
  const std::vector<uint8_t> expected = LaunchOnce(reference.graph, device);
  EXPECT_EQ(expected[0], 0x11);
  EXPECT_EQ(expected[200], 0x22);
  EXPECT_EQ(expected[305], 0x33);

  Graph kept(device);
  const unsigned before = CarveoutOf(kept.plain);
  StatusOr<int32_t> counted = SetKernelCarveout(kept.graph, kKeepCarveout);
  ASSERT_TRUE(counted.ok()) << counted.status().message();
  EXPECT_EQ(*counted, 1) << "counted, not set";
  EXPECT_EQ(CarveoutOf(kept.plain), before);

  // One graph set three times: each value differs from the one before, so each read shows a write.
  Graph g(device);
  const unsigned shared_before = CarveoutOf(g.with_shared);
  for (int32_t percent : {100, 37, 1}) {
    StatusOr<int32_t> set = SetKernelCarveout(g.graph, percent);
    ASSERT_TRUE(set.ok()) << set.status().message();
    EXPECT_EQ(*set, 1) << "the fill kernel without shared memory, not the one launched with some";
    EXPECT_EQ(CarveoutOf(g.plain), static_cast<unsigned>(percent));
    EXPECT_EQ(CarveoutOf(g.with_shared), shared_before);
    EXPECT_EQ(LaunchOnce(g.graph, device), expected) << "carveout " << percent;
  }
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "no error left behind";
  EXPECT_EQ(cudaFree(device), cudaSuccess);
}

}  // namespace
}  // namespace nimble::testing
