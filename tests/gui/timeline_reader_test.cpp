// store::TimelineReader (the viewer's compact streaming read) against RunReader::LoadTrace on random
// runs: the same kernels, copies, API calls and ranges, by slice and in batches, with the same strings.
#include "nimble/store/timeline_reader.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "gui_test_runs.h"
#include "nimble/store/run_reader.h"

namespace nimble::store {
namespace {

TEST(TimelineReaderTest, StreamsWhatRunReaderLoads) {
  const std::string dir = gui::testing::MakeScratchDir("reader");
  const std::string path = dir + "/random.db";
  std::mt19937_64 rng(21);
  const gui::testing::RandomRun run = gui::testing::MakeRandomRun(rng, 500);
  gui::testing::WriteRandomRun(path, run);
  auto full = RunReader::Open(path);
  ASSERT_TRUE(full.ok());
  auto trace = (*full)->LoadTrace(RunId(1));
  ASSERT_TRUE(trace.ok());
  auto reader = TimelineReader::Open(path);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  const StringTable& strings = (*reader)->strings();
  EXPECT_EQ(*(*reader)->KernelIndexEnd(RunId(1)), 500);
  EXPECT_EQ(*(*reader)->CountRows(RunId(1), TimelineTable::kApiCalls), static_cast<int64_t>(trace->api_calls.size()));

  for (bool with_correlation : {false, true}) {
    std::vector<TimelineRow> rows;
    // Two slices, small batches: the seams must not lose or repeat rows.
    for (auto [a, b] : {std::pair<int64_t, int64_t>{0, 123}, {123, 500}}) {
      ASSERT_TRUE((*reader)->ReadKernels(RunId(1), a, b, with_correlation, [&](std::span<const TimelineRow> batch) {
        rows.insert(rows.end(), batch.begin(), batch.end());
        return OkStatus();
      }, 7).ok());
    }
    ASSERT_EQ(rows.size(), trace->kernels.size());
    for (size_t i = 0; i < rows.size(); ++i) {
      const KernelRecord& k = trace->kernels[i];
      ASSERT_EQ(rows[i].index, static_cast<int64_t>(i));
      ASSERT_EQ(rows[i].start_ns, k.start_ns);
      ASSERT_EQ(rows[i].end_ns, k.end_ns);
      ASSERT_EQ(rows[i].device, k.device);
      ASSERT_EQ(rows[i].stream, k.stream);
      ASSERT_EQ(rows[i].correlation, with_correlation ? k.correlation : CorrelationId());
      ASSERT_EQ(strings.Get(rows[i].name), trace->strings.Get(k.short_name));
    }
  }
  std::vector<TimelineRow> copies;
  ASSERT_TRUE((*reader)->ReadTable(RunId(1), TimelineTable::kMemcpys, [&](std::span<const TimelineRow> batch) {
    copies.insert(copies.end(), batch.begin(), batch.end());
    return OkStatus();
  }).ok());
  ASSERT_EQ(copies.size(), trace->memcpys.size());
  for (size_t i = 0; i < copies.size(); ++i) {
    EXPECT_EQ(copies[i].start_ns, trace->memcpys[i].start_ns);
    EXPECT_EQ(copies[i].detail, static_cast<int32_t>(trace->memcpys[i].copy_kind));
    EXPECT_EQ(copies[i].correlation, trace->memcpys[i].correlation);
  }
  std::vector<TimelineRow> ranges;
  ASSERT_TRUE((*reader)->ReadTable(RunId(1), TimelineTable::kRanges, [&](std::span<const TimelineRow> batch) {
    ranges.insert(ranges.end(), batch.begin(), batch.end());
    return OkStatus();
  }).ok());
  ASSERT_EQ(ranges.size(), trace->ranges.size());
  for (size_t i = 0; i < ranges.size(); ++i) {
    EXPECT_EQ(ranges[i].thread, trace->ranges[i].thread);
    EXPECT_EQ(strings.Get(ranges[i].name), trace->strings.Get(trace->ranges[i].text));
  }
  std::vector<TimelineRow> graphs;
  ASSERT_TRUE((*reader)->ReadTable(RunId(1), TimelineTable::kGraphLaunches, [&](std::span<const TimelineRow> batch) {
    graphs.insert(graphs.end(), batch.begin(), batch.end());
    return OkStatus();
  }).ok());
  ASSERT_FALSE(trace->graph_launches.empty());
  ASSERT_EQ(graphs.size(), trace->graph_launches.size());
  EXPECT_EQ(*(*reader)->CountRows(RunId(1), TimelineTable::kGraphLaunches), std::ssize(trace->graph_launches));
  for (size_t i = 0; i < graphs.size(); ++i) {
    const GraphLaunchRecord& g = trace->graph_launches[i];
    EXPECT_EQ(graphs[i].start_ns, g.start_ns);
    EXPECT_EQ(graphs[i].end_ns, g.end_ns);
    EXPECT_EQ(graphs[i].device, g.device);
    EXPECT_EQ(graphs[i].stream, g.stream);
    EXPECT_EQ(graphs[i].correlation, g.correlation);
    EXPECT_EQ(graphs[i].bytes, g.graph_id);
  }
  auto kernel = (*reader)->LoadKernel(RunId(1), KernelIndex(42));
  ASSERT_TRUE(kernel.ok());
  EXPECT_EQ(kernel->correlation, trace->kernels[42].correlation);
  EXPECT_EQ(strings.Get(kernel->name), trace->strings.Get(trace->kernels[42].name));
  EXPECT_FALSE((*reader)->LoadKernel(RunId(1), KernelIndex(500)).ok());
  EXPECT_FALSE((*reader)->KernelIndexEnd(RunId(9)).ok());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace nimble::store
