// ActivityPipeline off CUPTI's thread: buffers submitted from several threads all reach the sink,
// are recycled to the pool, and the final summary states every count; a failing sink loses nothing
// silently.
#include "nimble/collector/activity_pipeline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <thread>

#include "nimble/collector/synthetic_records.h"
#include "nimble/collector/trace_sink.h"

namespace nimble::collector {
namespace {

int64_t StatValue(const std::vector<StatEntry>& stats, const std::string& name) {
  for (const StatEntry& s : stats) {
    if (s.name == name) return s.value;
  }
  ADD_FAILURE() << "no stat " << name;
  return -1;
}

// A buffer from the pool holding `kernels` kernel records with correlation ids first..first+kernels-1.
std::pair<uint8_t*, size_t> FilledBuffer(BufferPool& pool, uint32_t first, int kernels) {
  synthetic::RecordBuffer records;
  for (int i = 0; i < kernels; ++i) {
    const uint32_t c = first + static_cast<uint32_t>(i);
    records.Add(synthetic::Kernel(1000 + c, 2000 + c, 7 + c % 3, c, "_Z5emptyv"));
  }
  uint8_t* buffer = nullptr;
  while ((buffer = pool.Acquire()) == nullptr) std::this_thread::yield();
  std::memcpy(buffer, records.data(), records.size());
  return {buffer, records.size()};
}

TEST(ActivityPipelineTest, DeliversEveryBufferFromManyThreads) {
  TraceSink sink;
  BufferPool pool(64 * sizeof(KernelRecordV), 4);
  ActivityPipeline pipeline(sink, pool, ConverterOptions{});
  pipeline.Start();
  std::vector<std::thread> producers;
  for (uint32_t t = 0; t < 4; ++t) {
    producers.emplace_back([&, t] {
      for (uint32_t b = 0; b < 25; ++b) {
        auto [buffer, bytes] = FilledBuffer(pool, (t * 25 + b) * 50 + 1, 50);
        pipeline.Submit(buffer, bytes);
      }
    });
  }
  for (auto& p : producers) p.join();
  DeviceDescription gpu;
  gpu.info.id = DeviceId(0);
  gpu.info.sm_count = 132;
  gpu.name = "Test GPU";
  ASSERT_TRUE(pipeline.Finish(CollectorStats{}, {}, {gpu}).ok());

  ASSERT_TRUE(sink.finished());
  const Trace& trace = sink.trace();
  ASSERT_EQ(trace.kernels.size(), 4u * 25 * 50);
  std::vector<int64_t> correlations;
  for (const KernelRecord& k : trace.kernels) correlations.push_back(k.correlation.value());
  std::sort(correlations.begin(), correlations.end());
  for (size_t i = 0; i < correlations.size(); ++i) ASSERT_EQ(correlations[i], static_cast<int64_t>(i + 1));
  EXPECT_EQ(trace.strings.Get(trace.kernels[0].short_name), "empty");
  ASSERT_EQ(trace.devices.size(), 1u);
  EXPECT_EQ(trace.strings.Get(trace.devices[0].name), "Test GPU");
  EXPECT_EQ(StatValue(sink.summary().stats, "collector.records.kernel"), 5000);
  EXPECT_EQ(StatValue(sink.summary().stats, "collector.dropped_records"), 0);
  EXPECT_EQ(StatValue(sink.summary().stats, "collector.buffers_completed"), 100);
  EXPECT_EQ(pool.outstanding(), 0);
  EXPECT_EQ(pipeline.records_converted(), 5000);
}

class FailingSink : public RecordSink {
 public:
  Status Consume(const ActivityChunk&, const StringTable&) override {
    ++consumed;
    return consumed > 1 ? DataLoss("disk full") : OkStatus();
  }
  Status Finish(const SessionSummary& s, const StringTable&) override {
    summary = s;
    return OkStatus();
  }
  int consumed = 0;
  SessionSummary summary;
};

TEST(ActivityPipelineTest, CountsWhatAFailingSinkCouldNotTake) {
  FailingSink sink;
  BufferPool pool(16 * sizeof(KernelRecordV), 8);
  ActivityPipeline pipeline(sink, pool, ConverterOptions{});  // not started: converts in Finish
  for (uint32_t b = 0; b < 3; ++b) {
    auto [buffer, bytes] = FilledBuffer(pool, b * 10 + 1, 10);
    pipeline.Submit(buffer, bytes);
  }
  const Status s = pipeline.Finish(CollectorStats{}, {StatEntry{"collector.status", 0, Severity::kInfo, "test"}}, {});
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_EQ(sink.consumed, 2);  // not called again after it failed
  EXPECT_EQ(StatValue(sink.summary.stats, "collector.records_lost_in_sink"), 20);
  EXPECT_EQ(StatValue(sink.summary.stats, "collector.status"), 0);
  EXPECT_EQ(pool.outstanding(), 0);
}

}  // namespace
}  // namespace nimble::collector
