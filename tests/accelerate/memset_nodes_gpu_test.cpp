// Memset nodes replaced by fill kernels (accelerate/src/memset_nodes.h): a chain of memset nodes of each
// element size, some in rows, with overlapping writes whose order matters and one too large to replace;
// random single memsets; and a node with several dependencies and dependents, whose edges must join the
// same nodes afterwards. Each rewritten graph must write exactly what the memset graph writes. Skips
// without a CUDA device.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <string>
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
      Memset(device, 0x11223344u, 4, 1000),           // 4-byte elements over [0, 4000)
      Memset(device + 6, 0xbeefu, 2, 300),            // 2-byte, over part of the first
      Memset(device + 1001, 0x5au, 1, 777),           // 1-byte, odd start and length
      Memset(device + 5000, 0xa1u, 1, 100, 7, 256),   // 7 rows of 100 bytes, 256 apart
      Memset(device + 8002, 0xc0deu, 2, 33, 5, 130),  // 2-byte elements in 5 rows, 130 bytes apart
      Memset(device + 9000, 0x01u, 1, kMaxReplacedMemsetBytes + 1),  // too large: stays a memset
      Memset(device + 9010, 0x99u, 1, 4),             // after the large one, over it
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

TEST(MemsetNodesGpuTest, RandomMemsetsWriteWhatTheirNodesWrite) {
  if (!HaveGpu()) GTEST_SKIP() << "no CUDA device";
  uint8_t* device = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&device), kBytes), cudaSuccess);
  std::mt19937 random(7);
  for (int trial = 0; trial < 60; ++trial) {
    const unsigned element = std::vector<unsigned>{1, 2, 4}[random() % 3];
    const size_t width = 1 + random() % 700, height = 1 + random() % 6;
    const size_t pitch = (width + random() % 40) * element;  // rows may have gaps between them
    const size_t offset = (random() % 2000) * element;       // aligned to the element, as memsets must be
    Chain chain;
    const unsigned value = static_cast<unsigned>(random()) >> (32 - 8 * element) % 32;  // fits the element
    chain.memsets = {Memset(device + offset, value, element, width, height, pitch)};
    std::vector<uint8_t> expected(kBytes, 0x7f);
    chain.Apply(&expected, device);
    cudaGraph_t original = chain.Build();
    cudaGraph_t rewritten = chain.Build();
    StatusOr<MemsetRewrite> rewrite = ReplaceMemsetNodes(rewritten);
    ASSERT_TRUE(rewrite.ok()) << rewrite.status().message();
    const std::string what = "element " + std::to_string(element) + ", " + std::to_string(height) + " rows of " +
                             std::to_string(width) + ", pitch " + std::to_string(pitch);
    EXPECT_EQ(rewrite->replaced, 1) << what;
    EXPECT_EQ(LaunchOnce(original, device), expected) << "memset node: " << what;
    EXPECT_EQ(LaunchOnce(rewritten, device), expected) << "fill kernel: " << what;
    EXPECT_EQ(cudaGraphDestroy(original), cudaSuccess);
    EXPECT_EQ(cudaGraphDestroy(rewritten), cudaSuccess);
  }
  EXPECT_EQ(cudaFree(device), cudaSuccess);
}

std::set<cudaGraphNode_t> Neighbours(cudaGraphNode_t node, bool incoming) {
  size_t count = 0;
  auto list = [&](cudaGraphNode_t* nodes) {
    return incoming ? cudaGraphNodeGetDependencies(node, nodes, nullptr, &count)
                    : cudaGraphNodeGetDependentNodes(node, nodes, nullptr, &count);
  };
  EXPECT_EQ(list(nullptr), cudaSuccess);
  std::vector<cudaGraphNode_t> nodes(count);
  if (count > 0) {
    EXPECT_EQ(list(nodes.data()), cudaSuccess);
  }
  return {nodes.begin(), nodes.end()};
}

TEST(MemsetNodesGpuTest, TheKernelJoinsTheSameNodesAsTheMemset) {
  if (!HaveGpu()) GTEST_SKIP() << "no CUDA device";
  void* device = nullptr;
  ASSERT_EQ(cudaMalloc(&device, 64), cudaSuccess);
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaGraphCreate(&graph, 0), cudaSuccess);
  // two roots -> the memset -> two leaves, and a third leaf that depends on a root alone
  cudaGraphNode_t roots[2] = {}, leaves[3] = {}, memset = nullptr;
  for (cudaGraphNode_t& root : roots) ASSERT_EQ(cudaGraphAddEmptyNode(&root, graph, nullptr, 0), cudaSuccess);
  const cudaMemsetParams params = Memset(device, 0, 4, 16);
  ASSERT_EQ(cudaGraphAddMemsetNode(&memset, graph, roots, 2, &params), cudaSuccess);
  ASSERT_EQ(cudaGraphAddEmptyNode(&leaves[0], graph, &memset, 1), cudaSuccess);
  ASSERT_EQ(cudaGraphAddEmptyNode(&leaves[1], graph, &memset, 1), cudaSuccess);
  ASSERT_EQ(cudaGraphAddEmptyNode(&leaves[2], graph, &roots[1], 1), cudaSuccess);
  StatusOr<MemsetRewrite> rewrite = ReplaceMemsetNodes(graph);
  ASSERT_TRUE(rewrite.ok()) << rewrite.status().message();
  ASSERT_EQ(rewrite->replaced, 1);
  size_t count = 0;
  ASSERT_EQ(cudaGraphGetNodes(graph, nullptr, &count), cudaSuccess);
  std::vector<cudaGraphNode_t> nodes(count);
  ASSERT_EQ(cudaGraphGetNodes(graph, nodes.data(), &count), cudaSuccess);
  ASSERT_EQ(count, 6u);
  std::vector<cudaGraphNode_t> kernels;
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type{};
    ASSERT_EQ(cudaGraphNodeGetType(node, &type), cudaSuccess);
    if (type == cudaGraphNodeTypeKernel) kernels.push_back(node);
  }
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(Neighbours(kernels[0], /*incoming=*/true), (std::set<cudaGraphNode_t>{roots[0], roots[1]}));
  EXPECT_EQ(Neighbours(kernels[0], /*incoming=*/false), (std::set<cudaGraphNode_t>{leaves[0], leaves[1]}));
  EXPECT_EQ(Neighbours(leaves[2], /*incoming=*/true), (std::set<cudaGraphNode_t>{roots[1]}));
  size_t edges = 0;
  ASSERT_EQ(cudaGraphGetEdges(graph, nullptr, nullptr, nullptr, &edges), cudaSuccess);
  EXPECT_EQ(edges, 5u);
  EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
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
