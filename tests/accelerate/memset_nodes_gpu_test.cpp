// Memset nodes replaced by fill kernels (accelerate/src/memset_nodes.h): a graph of memset nodes of
// each element size, one of two dimensions, overlapping writes whose order matters, and one too large to
// replace, written by the rewritten graph exactly as by the original. Skips without a CUDA device.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "memset_nodes.h"

namespace nimble::testing {
namespace {

using ::nimble::accelerate::CountMemsetNodes;
using ::nimble::accelerate::kMaxReplacedMemsetBytes;
using ::nimble::accelerate::MemsetRewrite;
using ::nimble::accelerate::ReplaceMemsetNodes;

bool HaveGpu() {
  int count = 0;
  const bool have = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  (void)cudaGetLastError();
  return have;
}

constexpr size_t kBytes = 2 * kMaxReplacedMemsetBytes;

// A chain of memset nodes over one buffer; `Apply` writes each on a host copy in the same order.
struct Chain {
  std::vector<cudaMemsetParams> memsets;

  void Apply(std::vector<uint8_t>* host, const uint8_t* base) const {
    for (const cudaMemsetParams& m : memsets) {
      const size_t pitch = m.height > 1 ? m.pitch : m.width * m.elementSize;
      for (size_t row = 0; row < m.height; ++row) {
        for (size_t col = 0; col < m.width; ++col) {
          const size_t offset = static_cast<const uint8_t*>(m.dst) - base + row * pitch + col * m.elementSize;
          std::memcpy(host->data() + offset, &m.value, m.elementSize);  // little-endian: the low bytes
        }
      }
    }
  }

  // The graph: each memset depends on the one before it.
  cudaGraph_t Build() const {
    cudaGraph_t graph = nullptr;
    EXPECT_EQ(cudaGraphCreate(&graph, 0), cudaSuccess);
    cudaGraphNode_t previous = nullptr;
    for (const cudaMemsetParams& m : memsets) {
      cudaGraphNode_t node = nullptr;
      EXPECT_EQ(cudaGraphAddMemsetNode(&node, graph, previous ? &previous : nullptr, previous ? 1 : 0, &m),
                cudaSuccess);
      previous = node;
    }
    return graph;
  }
};

cudaMemsetParams Memset(void* dst, unsigned value, unsigned element_size, size_t width, size_t height = 1,
                        size_t pitch = 0) {
  cudaMemsetParams m{};
  m.dst = dst;
  m.value = value;
  m.elementSize = element_size;
  m.width = width;
  m.height = height;
  m.pitch = pitch;
  return m;
}

// The buffer after one launch of `graph` (instantiated here), starting from all 0x7f bytes.
std::vector<uint8_t> LaunchOnce(cudaGraph_t graph, uint8_t* device) {
  std::vector<uint8_t> out(kBytes);
  EXPECT_EQ(cudaMemset(device, 0x7f, kBytes), cudaSuccess);
  cudaGraphExec_t exec = nullptr;
  EXPECT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  EXPECT_EQ(cudaGraphLaunch(exec, nullptr), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(out.data(), device, kBytes, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
  return out;
}

int32_t MemsetNodesIn(cudaGraph_t graph) {
  StatusOr<MemsetRewrite> counted = CountMemsetNodes(graph);
  EXPECT_TRUE(counted.ok()) << counted.status().message();
  return counted.ok() ? counted->kept : -1;
}

TEST(MemsetNodesGpuTest, SmallMemsetsBecomeKernelsThatWriteTheSameBytesInTheSameOrder) {
  if (!HaveGpu()) GTEST_SKIP() << "no CUDA device";
  uint8_t* device = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&device), kBytes), cudaSuccess);
  Chain chain;
  chain.memsets = {
      Memset(device, 0x11223344u, 4, 1000),                 // 4-byte elements
      Memset(device + 6, 0xbeefu, 2, 300),                  // 2-byte, over part of the first
      Memset(device + 1001, 0x5au, 1, 777),                 // 1-byte, odd start and length
      Memset(device + 5000, 0xa1u, 1, 100, 7, 256),         // two dimensions: 7 rows of 100, 256 apart
      Memset(device + 8002, 0xc0deu, 2, 33, 5, 130),        // 2-byte elements in rows
      Memset(device, 0x01u, 1, kMaxReplacedMemsetBytes + 1),  // too large: stays a memset
      Memset(device + 12, 0x99u, 1, 4),                     // after the large one, over it
  };
  std::vector<uint8_t> expected(kBytes, 0x7f);
  chain.Apply(&expected, device);

  cudaGraph_t original = chain.Build();
  EXPECT_EQ(LaunchOnce(original, device), expected) << "the memset graph itself";
  cudaGraph_t rewritten = chain.Build();
  StatusOr<MemsetRewrite> rewrite = ReplaceMemsetNodes(rewritten);
  ASSERT_TRUE(rewrite.ok()) << rewrite.status().message();
  EXPECT_EQ(rewrite->replaced, 6);
  EXPECT_EQ(rewrite->kept, 1);
  EXPECT_EQ(MemsetNodesIn(rewritten), 1);
  size_t nodes = 0, edges = 0;
  ASSERT_EQ(cudaGraphGetNodes(rewritten, nullptr, &nodes), cudaSuccess);
  ASSERT_EQ(cudaGraphGetEdges(rewritten, nullptr, nullptr, nullptr, &edges), cudaSuccess);
  EXPECT_EQ(nodes, chain.memsets.size());
  EXPECT_EQ(edges, chain.memsets.size() - 1) << "each node still follows the one before it";
  EXPECT_EQ(LaunchOnce(rewritten, device), expected) << "the rewritten graph";
  EXPECT_EQ(cudaGraphDestroy(original), cudaSuccess);
  EXPECT_EQ(cudaGraphDestroy(rewritten), cudaSuccess);
  EXPECT_EQ(cudaFree(device), cudaSuccess);
}

TEST(MemsetNodesGpuTest, AGraphWithoutMemsetsIsLeftAlone) {
  if (!HaveGpu()) GTEST_SKIP() << "no CUDA device";
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaGraphCreate(&graph, 0), cudaSuccess);
  cudaGraphNode_t empty = nullptr;
  ASSERT_EQ(cudaGraphAddEmptyNode(&empty, graph, nullptr, 0), cudaSuccess);
  StatusOr<MemsetRewrite> rewrite = ReplaceMemsetNodes(graph);
  ASSERT_TRUE(rewrite.ok()) << rewrite.status().message();
  EXPECT_EQ(rewrite->replaced, 0);
  EXPECT_EQ(rewrite->kept, 0);
  size_t nodes = 0;
  ASSERT_EQ(cudaGraphGetNodes(graph, nullptr, &nodes), cudaSuccess);
  EXPECT_EQ(nodes, 1u);
  EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
}

}  // namespace
}  // namespace nimble::testing
