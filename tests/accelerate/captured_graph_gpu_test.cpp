// CapturedGraph's second executable (accelerate/src/aot_graph_impl.h), which the training step and
// nimble-accelerate time with the shared-memory carveout: refused before the graph is kept and instantiated, and twice; the
// alternate replays the same nodes on the same memory; swapping trades the executables and swaps back;
// dropping it leaves the first. Skips without a CUDA device.
#include <ATen/ATen.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <gtest/gtest.h>

#include "aot_graph_impl.h"
#include "nimble/accelerate/cuda_devices.h"

namespace nimble::testing {
namespace {

using ::nimble::accelerate::CapturedGraph;

// Fills `x` with `value`, replays, and says whether every element of `y` is 2 * value + 1.
bool ReplayGives(CapturedGraph& graph, at::Tensor& x, const at::Tensor& y, float value) {
  x.fill_(value);
  graph.replay();
  c10::cuda::device_synchronize();
  return at::equal(y, at::full_like(y, 2 * value + 1));
}

TEST(CapturedGraphGpuTest, TheAlternateExecutableReplaysTheSameGraphAndSwapsBack) {
  if (accelerate::CudaDeviceCount() == 0) GTEST_SKIP() << "no CUDA device";
  at::Tensor x = at::zeros({4096}, at::kCUDA);
  c10::cuda::device_synchronize();
  CapturedGraph graph(/*keep_graph=*/true);
  EXPECT_EQ(graph.InstantiateAlternate().code(), StatusCode::kFailedPrecondition);  // nothing captured
  at::Tensor y;
  {
    c10::cuda::CUDAStreamGuard guard(c10::cuda::getStreamFromPool());
    graph.capture_begin();
    y = x * 2 + 1;
    graph.capture_end();
  }
  EXPECT_EQ(graph.InstantiateAlternate().code(), StatusCode::kFailedPrecondition);  // not instantiated
  graph.instantiate();
  const cudaGraphExec_t first = graph.raw_cuda_graph_exec();
  const Status made = graph.InstantiateAlternate();
  ASSERT_TRUE(made.ok()) << made.ToString();
  EXPECT_TRUE(graph.has_alternate());
  EXPECT_EQ(graph.InstantiateAlternate().code(), StatusCode::kFailedPrecondition);  // one alternate
  EXPECT_TRUE(ReplayGives(graph, x, y, 1));
  graph.SwapAlternate();
  EXPECT_NE(graph.raw_cuda_graph_exec(), first);
  EXPECT_TRUE(ReplayGives(graph, x, y, 3));  // the alternate writes the same output buffer
  graph.SwapAlternate();
  EXPECT_EQ(graph.raw_cuda_graph_exec(), first);
  EXPECT_TRUE(ReplayGives(graph, x, y, 5));
  graph.SwapAlternate();
  graph.DropAlternate();  // the first goes; the alternate stays the one replayed
  EXPECT_FALSE(graph.has_alternate());
  const cudaGraphExec_t kept = graph.raw_cuda_graph_exec();
  EXPECT_NE(kept, first);
  graph.SwapAlternate();  // nothing to swap with
  EXPECT_EQ(graph.raw_cuda_graph_exec(), kept);
  EXPECT_TRUE(ReplayGives(graph, x, y, 7));
}

}  // namespace
}  // namespace nimble::testing
