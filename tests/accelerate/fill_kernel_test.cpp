// The kernel node that stands in for a memset node (accelerate/kernels/fill_kernel.h), as built on the
// host: which memsets it takes, the arguments it passes, its grid. No device needed: building the
// parameters calls no CUDA function. What the kernel writes is checked against memset nodes on a GPU
// (memset_nodes_gpu_test.cpp).
#include <gtest/gtest.h>

#include <cstdint>

#include "fill_kernel.h"

namespace nimble::testing {
namespace {

using ::nimble::accelerate::kernels::FillNode;
using ::nimble::accelerate::kernels::MakeFillNode;

cudaMemsetParams Memset(void* dst, unsigned element_size, size_t width, size_t height = 1, size_t pitch = 0) {
  cudaMemsetParams m{};
  m.dst = dst;
  m.value = 0xabcd1234u;
  m.elementSize = element_size;
  m.width = width;
  m.height = height;
  m.pitch = pitch;
  return m;
}

int buffer[4];

TEST(FillKernelTest, TakesEachElementSizeAMemsetNodeCanHave) {
  const void* functions[3] = {};
  int i = 0;
  for (unsigned size : {1u, 2u, 4u}) {
    FillNode node;
    ASSERT_TRUE(MakeFillNode(Memset(buffer, size, 4), &node)) << size;
    ASSERT_NE(node.params.func, nullptr);
    functions[i++] = node.params.func;
  }
  EXPECT_NE(functions[0], functions[1]);
  EXPECT_NE(functions[1], functions[2]);
  EXPECT_NE(functions[0], functions[2]);
}

TEST(FillKernelTest, LeavesWhatItCannotWriteToTheMemsetNode) {
  FillNode node;
  EXPECT_FALSE(MakeFillNode(Memset(buffer, 3, 4), &node)) << "element size 3";
  EXPECT_FALSE(MakeFillNode(Memset(buffer, 8, 4), &node)) << "element size 8";
  EXPECT_FALSE(MakeFillNode(Memset(buffer, 4, 0), &node)) << "nothing to write";
  EXPECT_FALSE(MakeFillNode(Memset(buffer, 4, 4, 0, 16), &node)) << "no rows";
  EXPECT_FALSE(MakeFillNode(Memset(nullptr, 4, 4), &node)) << "no destination";
  EXPECT_EQ(node.params.func, nullptr) << "the node is untouched";
}

TEST(FillKernelTest, PassesTheMemsetsDestinationValueAndShapeAsItsArguments) {
  FillNode node;
  ASSERT_TRUE(MakeFillNode(Memset(buffer, 2, 33, 5, 130), &node));
  ASSERT_EQ(node.params.kernelParams, node.args);
  EXPECT_EQ(*static_cast<void**>(node.args[0]), static_cast<void*>(buffer));
  EXPECT_EQ(*static_cast<size_t*>(node.args[1]), 130u) << "rows keep their pitch";
  EXPECT_EQ(*static_cast<unsigned*>(node.args[2]), 0xabcd1234u) << "the kernel keeps the low bytes";
  EXPECT_EQ(*static_cast<size_t*>(node.args[3]), 33u);
  EXPECT_EQ(*static_cast<size_t*>(node.args[4]), 5u);
  EXPECT_EQ(node.params.extra, nullptr);
  EXPECT_EQ(node.params.sharedMemBytes, 0u);

  FillNode row;
  ASSERT_TRUE(MakeFillNode(Memset(buffer, 4, 10, 1, 0), &row));
  EXPECT_EQ(row.pitch, 40u) << "one row: the pitch a memset ignores is the row's own length";
}

TEST(FillKernelTest, GridCoversTheElementsUpToItsBound) {
  FillNode small;
  ASSERT_TRUE(MakeFillNode(Memset(buffer, 4, 1), &small));
  EXPECT_EQ(small.params.gridDim.x, 1u);
  const unsigned threads = small.params.blockDim.x;
  ASSERT_GT(threads, 0u);
  FillNode exact;
  ASSERT_TRUE(MakeFillNode(Memset(buffer, 1, threads * 3), &exact));
  EXPECT_EQ(exact.params.gridDim.x, 3u);
  FillNode over;
  ASSERT_TRUE(MakeFillNode(Memset(buffer, 1, threads * 3 + 1), &over));
  EXPECT_EQ(over.params.gridDim.x, 4u);
  FillNode large;
  ASSERT_TRUE(MakeFillNode(Memset(buffer, 4, size_t{1} << 26), &large));
  EXPECT_EQ(large.params.gridDim.x, 1024u) << "a grid-stride loop covers the rest";
  EXPECT_EQ(large.params.gridDim.y, 1u);
}

}  // namespace
}  // namespace nimble::testing
