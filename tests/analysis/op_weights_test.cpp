#include "nimble/analysis/op_weights.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "trace_testing.h"

namespace nimble::analysis {
namespace {

int64_t Uniform(std::mt19937_64& rng, int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); }

// Op v's kernels the slow way: every attribution entry of v whose kernel starts in the window, in
// attribution order, then ordered by start with ties kept in that order (insertion sort).
std::vector<KernelIndex> BruteForceKernels(int32_t v, const std::vector<KernelAttribution>& attribution,
                                           const std::vector<KernelSpan>& kernels, std::optional<TimeWindow> window) {
  std::vector<KernelIndex> out;
  for (const KernelAttribution& a : attribution) {
    const KernelSpan& k = kernels[static_cast<size_t>(a.kernel.value())];
    const bool in = !window || (k.start_ns >= window->start_ns && k.start_ns < window->end_ns);
    if (a.op.value() != v || !in) continue;
    size_t at = out.size();
    while (at > 0 && kernels[static_cast<size_t>(out[at - 1].value())].start_ns > k.start_ns) --at;
    out.insert(out.begin() + static_cast<std::ptrdiff_t>(at), a.kernel);
  }
  return out;
}

TEST(OpWeightsTest, MatchesBruteForceOnThousandsOfRandomInputs) {
  std::mt19937_64 rng(21);
  for (int trial = 0; trial < 3000; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    std::vector<KernelSpan> kernels(static_cast<size_t>(Uniform(rng, 1, 12)));
    for (KernelSpan& k : kernels) {
      k.start_ns = Uniform(rng, 0, 40);  // many equal starts
      k.end_ns = k.start_ns + Uniform(rng, 0, 9);
      k.device = DeviceId(static_cast<int32_t>(Uniform(rng, 0, 2)));
      k.stream = StreamId(Uniform(rng, 1, 3));
    }
    const auto num_ops = static_cast<int32_t>(Uniform(rng, 1, 5));
    std::vector<KernelAttribution> attribution;  // kernels unattributed, attributed once or twice
    for (int64_t i = Uniform(rng, 0, 14); i > 0; --i) {
      attribution.push_back({OpId(static_cast<int32_t>(Uniform(rng, 0, num_ops - 1))),
                             KernelIndex(Uniform(rng, 0, static_cast<int64_t>(kernels.size()) - 1))});
    }
    std::optional<TimeWindow> window;
    if (Uniform(rng, 0, 2) != 0) window = TimeWindow{Uniform(rng, 0, 30), Uniform(rng, 0, 50)};
    auto weighed = WeighOps(num_ops, attribution, kernels, window);
    ASSERT_TRUE(weighed.ok()) << weighed.status().ToString();
    ASSERT_EQ(weighed->op_time_ns.size(), static_cast<size_t>(num_ops));
    size_t total = 0;
    for (int32_t v = 0; v < num_ops; ++v) {
      const std::vector<KernelIndex> want = BruteForceKernels(v, attribution, kernels, window);
      const auto got = weighed->of(static_cast<size_t>(v));
      ASSERT_EQ(std::vector<KernelIndex>(got.begin(), got.end()), want) << "op " << v;
      int64_t time = 0;
      for (KernelIndex k : want) time += kernels[static_cast<size_t>(k.value())].dur_ns();
      ASSERT_EQ(weighed->op_time_ns[static_cast<size_t>(v)], time) << "op " << v;
      total += want.size();
    }
    ASSERT_EQ(weighed->kernels.size(), total);
    const DeviceId device = attribution.empty() ? DeviceId() : kernels[static_cast<size_t>(attribution[0].kernel.value())].device;
    ASSERT_EQ(weighed->device, device);
  }
}

TEST(OpWeightsTest, BadAttributionNamesOpAndKernel) {
  const std::vector<KernelSpan> kernels(3);
  const std::vector<KernelAttribution> bad_op{{OpId(0), KernelIndex(0)}, {OpId(4), KernelIndex(1)}};
  auto a = WeighOps(2, bad_op, kernels, std::nullopt);
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("op 4"), std::string::npos) << a.status().message();
  // Kernels outside the window are checked too.
  const std::vector<KernelAttribution> bad_kernel{{OpId(1), KernelIndex(3)}};
  auto b = WeighOps(2, bad_kernel, kernels, TimeWindow{100, 200});
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("kernel 3"), std::string::npos) << b.status().message();
  EXPECT_FALSE(WeighOps(2, std::vector<KernelAttribution>{{OpId(0), KernelIndex(-1)}}, kernels, std::nullopt).ok());
}

TEST(OpWeightsTest, TheLastIterationWeighs) {
  EXPECT_EQ(WeighingWindow({}), std::nullopt);
  const std::vector<TimeWindow> windows{{0, 10}, {20, 30}, {40, 50}};
  EXPECT_EQ(WeighingWindow(windows), (TimeWindow{40, 50}));
}

TEST(OpWeightsTest, KernelSpansOfATrace) {
  Trace t;
  t.kernels = {testing::Kernel(5, 9, 3, -1, 1), testing::Kernel(1, 2)};
  const std::vector<KernelSpan> spans = KernelSpans(t);
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_EQ(spans[0].start_ns, 5);
  EXPECT_EQ(spans[0].dur_ns(), 4);
  EXPECT_EQ(spans[0].device, DeviceId(1));
  EXPECT_EQ(spans[0].stream, StreamId(3));
  EXPECT_EQ(spans[1].start_ns, 1);
}

}  // namespace
}  // namespace nimble::analysis
