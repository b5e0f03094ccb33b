// Kernel attribution of in-process runs on hand-built traces: by pushed external id, by launch time
// when no id was pushed, and unattributed otherwise; per-op median GPU time over iteration windows,
// checked against a direct computation on random traces.
#include "nimble/analysis/op_attribution.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>


namespace nimble::analysis {
namespace {

constexpr int32_t kKind = 3;  // any kind: the collector pushes op ids as CUPTI's CUSTOM0 (3)

struct TraceBuilder {
  Trace trace;
  // A kernel [start, end) launched by an API call at `launch_ns` on thread 1, with correlation `corr`.
  void Kernel(int64_t corr, int64_t start, int64_t end, int64_t launch_ns) {
    KernelRecord k;
    k.start_ns = start, k.end_ns = end, k.correlation = CorrelationId(corr), k.device = DeviceId(0);
    trace.kernels.push_back(k);
    ApiCallRecord a;
    a.start_ns = launch_ns, a.end_ns = launch_ns + 5, a.correlation = CorrelationId(corr), a.thread = ThreadId(1);
    trace.api_calls.push_back(a);
  }
  void Pushed(int64_t corr, int64_t external_id, int32_t kind = kKind) {
    trace.external_correlations.push_back(ExternalCorrelation{CorrelationId(corr), external_id, kind});
  }
};

TEST(OpAttributionTest, PushedIdsNameTheOp) {
  TraceBuilder b;
  b.Kernel(10, 100, 150, 20), b.Pushed(10, 1);  // op 0
  b.Kernel(11, 150, 250, 30), b.Pushed(11, 3);  // op 2
  const OpAttribution a = AttributeKernels(b.trace, 3, kKind, {});
  EXPECT_EQ(a.kernels, (std::vector<KernelAttribution>{{OpId(0), KernelIndex(0)}, {OpId(2), KernelIndex(1)}}));
  EXPECT_EQ(a.by_external_id, 2);
  EXPECT_EQ(a.unattributed, 0);
  EXPECT_EQ(a.kernel_ns, 150);
  EXPECT_EQ(a.unattributed_share(), 0);
}

TEST(OpAttributionTest, OtherKindsAndIdsOutsideTheGraphDoNotCount) {
  TraceBuilder b;
  b.Kernel(10, 100, 150, 20), b.Pushed(10, 1, kKind + 1);  // someone else's kind
  b.Kernel(11, 150, 250, 30), b.Pushed(11, 9);             // no op 8 in a 3-op graph
  b.Kernel(12, 250, 260, 40);                               // nothing pushed
  const OpAttribution a = AttributeKernels(b.trace, 3, kKind, {});
  EXPECT_TRUE(a.kernels.empty());
  EXPECT_EQ(a.unattributed, 3);
  EXPECT_EQ(a.foreign_ids, 1);
  EXPECT_EQ(a.unattributed_ns, 160);
  EXPECT_DOUBLE_EQ(a.unattributed_share(), 1.0);
  bool warned = false;
  for (const StatEntry& s : a.ToStats()) warned = warned || (s.name == "attribution.unattributed" && s.severity == Severity::kWarning);
  EXPECT_TRUE(warned);
}

TEST(OpAttributionTest, LaunchTimeInsideABracketIsTheFallback) {
  TraceBuilder b;
  b.Kernel(10, 100, 150, 20);  // launched at 20: bracket of op 1 [10, 30]
  b.Kernel(11, 150, 250, 35);  // launched at 35: between brackets
  b.Kernel(12, 250, 260, 40);  // launched at 40: bracket of op 2 [40, 60], its first instant
  const std::vector<OpBracket> brackets = {{OpId(1), ThreadId(1), 10, 30}, {OpId(2), ThreadId(1), 40, 60},
                                           {OpId(0), ThreadId(2), 0, 100}};  // another thread: never matches
  const OpAttribution a = AttributeKernels(b.trace, 3, kKind, brackets);
  EXPECT_EQ(a.kernels, (std::vector<KernelAttribution>{{OpId(1), KernelIndex(0)}, {OpId(2), KernelIndex(2)}}));
  EXPECT_EQ(a.by_launch_time, 2);
  EXPECT_EQ(a.unattributed, 1);
  EXPECT_EQ(a.unattributed_ns, 100);
}

TEST(OpAttributionTest, MedianOverWindowsIgnoresKernelsBetweenThem) {
  Trace t;
  auto kernel = [&](int64_t s, int64_t e) {
    KernelRecord k;
    k.start_ns = s, k.end_ns = e;
    t.kernels.push_back(k);
  };
  kernel(0, 10), kernel(100, 130), kernel(200, 205), kernel(150, 190);  // the last lies between windows
  const std::vector<KernelAttribution> attribution = {
      {OpId(0), KernelIndex(0)}, {OpId(0), KernelIndex(1)}, {OpId(0), KernelIndex(2)}, {OpId(1), KernelIndex(3)}};
  const std::vector<TimeWindow> windows = {{200, 300}, {0, 50}, {100, 150}};  // any order
  EXPECT_EQ(MedianOpTimes(t, attribution, 2, windows), (std::vector<int64_t>{10, 0}));
  EXPECT_EQ(MedianOpTimes(t, attribution, 2, {}), (std::vector<int64_t>{45, 40}));  // no windows: the sum
}

TEST(OpAttributionTest, RandomTracesAgreeWithADirectComputation) {
  std::mt19937 rng(17);
  for (int trial = 0; trial < 200; ++trial) {
    const int32_t ops = 1 + static_cast<int32_t>(rng() % 6);
    const int windows = 1 + static_cast<int>(rng() % 5);
    TraceBuilder b;
    std::vector<std::vector<int64_t>> expected(static_cast<size_t>(windows), std::vector<int64_t>(static_cast<size_t>(ops)));
    std::vector<TimeWindow> spans;
    int64_t corr = 1;
    for (int w = 0; w < windows; ++w) {
      spans.push_back({w * 1000, w * 1000 + 900});
      for (int k = 0; k < static_cast<int>(rng() % 8); ++k, ++corr) {
        const int32_t op = static_cast<int32_t>(rng() % static_cast<uint32_t>(ops));
        const int64_t start = w * 1000 + static_cast<int64_t>(rng() % 800), dur = 1 + static_cast<int64_t>(rng() % 99);
        b.Kernel(corr, start, start + dur, start - 5);
        b.Pushed(corr, op + 1);
        expected[static_cast<size_t>(w)][static_cast<size_t>(op)] += dur;
      }
    }
    const OpAttribution a = AttributeKernels(b.trace, ops, kKind, {});
    ASSERT_EQ(a.unattributed, 0);
    const std::vector<int64_t> got = MedianOpTimes(b.trace, a.kernels, ops, spans);
    for (int32_t op = 0; op < ops; ++op) {
      std::vector<int64_t> samples;
      for (const auto& row : expected) samples.push_back(row[static_cast<size_t>(op)]);
      std::sort(samples.begin(), samples.end());
      EXPECT_EQ(got[static_cast<size_t>(op)], samples[samples.size() / 2]) << "trial " << trial << " op " << op;
    }
  }
}

}  // namespace
}  // namespace nimble::analysis
