// What the details pane and search say, on the known model run; and the iteration detector's choice.
#include "nimble/gui/item_description.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "gui_test_runs.h"
#include "model_run_fixture.h"
#include "nimble/gui/item_search.h"
#include "nimble/gui/iteration_detector.h"
#include "nimble/gui/run_loader.h"
#include "nimble/store/run_writer.h"

namespace nimble::gui {
namespace {

std::string Field(const ItemDescription& d, const std::string& key) {
  for (const auto& [k, v] : d.fields) {
    if (k == key) return v;
  }
  return "<missing>";
}

using ModelRunTest = testing::LoadedModelRunTest;

TEST_F(ModelRunTest, DescribesAKernelWithItsOpAndLaunch) {
  const int32_t lane = run_.timeline.FindLane(LaneKind::kStream, DeviceId(0), StreamId(7), ThreadId());
  const ItemDescription d = DescribeItem(run_, {0, lane, 0, 3});  // iteration 1's classifier
  EXPECT_EQ(d.kind, "Kernel");
  EXPECT_EQ(d.title, "sgemm_classifier");
  EXPECT_EQ(Field(d, "Duration"), "30.0 µs");
  EXPECT_EQ(Field(d, "Start"), "138 µs");  // from the first iteration's start
  EXPECT_EQ(Field(d, "Iteration"), "1 of 3");
  EXPECT_EQ(Field(d, "Op"), "classifier (aten::linear)");
  EXPECT_EQ(Field(d, "Critical path"), "yes, op 4 of 4");
  EXPECT_EQ(Field(d, "Launched by"), "cudaLaunchKernel_v7000 on thread 1001");
  EXPECT_EQ(Field(d, "Stream"), "7");
}

TEST_F(ModelRunTest, DescribesGapsAndApiCalls) {
  const int32_t idle = run_.timeline.FindLane(LaneKind::kDeviceIdle, DeviceId(0), StreamId(), ThreadId());
  const RowItems& gaps = run_.timeline.lanes[static_cast<size_t>(idle)].rows[0];
  const int64_t sync_gap = gaps.FindNear(run_.timeline.iterations[0].first + 200'000, 0);
  ASSERT_GE(sync_gap, 0);
  const ItemDescription g = DescribeItem(run_, {0, idle, 0, sync_gap});
  EXPECT_EQ(g.kind, "Idle gap");
  EXPECT_EQ(Field(g, "Cause"), "synchronization");
  EXPECT_EQ(Field(g, "Duration"), "97.0 µs");
  const int32_t api = run_.timeline.FindLane(LaneKind::kHostApi, DeviceId(), StreamId(), ThreadId(1001));
  const ItemDescription a = DescribeItem(run_, {0, api, 0, 0});
  EXPECT_EQ(a.title, "cudaLaunchKernel_v7000");
  EXPECT_EQ(Field(a, "Launched"), "implicit_gemm_conv_stem on stream 7");
}

TEST(GraphLaunchTest, DescribesAGraphRecordedAtGraphLevel) {
  const std::string dir = testing::MakeScratchDir("graph_level");
  Trace trace;  // one graph launch of 40 us on stream 13, then a kernel after an idle gap
  GraphLaunchRecord g;
  g.start_ns = 1'000'000;
  g.end_ns = 1'040'000;
  g.device = DeviceId(0);
  g.stream = StreamId(13);
  g.correlation = CorrelationId(153);
  g.graph_id = 5;
  trace.graph_launches = {g};
  KernelRecord k;
  k.start_ns = 1'050'000;
  k.end_ns = 1'060'000;
  k.device = DeviceId(0);
  k.stream = StreamId(13);
  k.name = k.short_name = trace.strings.Intern("after_the_graph");
  trace.kernels = {k};
  RunInfo info;
  info.model = "graph";
  info.mode = RunMode::kProgram;
  auto writer = store::RunWriter::Create(dir + "/graph.db", info);
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  ASSERT_TRUE((*writer)->AppendTrace(trace).ok());
  ASSERT_TRUE((*writer)->Commit().ok());
  writer->reset();

  auto loaded = LoadRun(dir + "/graph.db", RunId(1));
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  const int32_t lane = loaded->timeline.FindLane(LaneKind::kStream, DeviceId(0), StreamId(13), ThreadId());
  ASSERT_GE(lane, 0);
  const RowItems& row = loaded->timeline.lanes[static_cast<size_t>(lane)].rows[0];
  ASSERT_EQ(row.size(), 2u);
  ASSERT_EQ(row.ref(0).kind(), ItemKind::kGraphLaunch);
  const ItemDescription d = DescribeItem(*loaded, {0, lane, 0, 0});
  EXPECT_EQ(d.kind, "CUDA graph launch");
  EXPECT_EQ(d.title, "CUDA graph 5");
  EXPECT_EQ(Field(d, "Duration"), "40.0 µs");
  EXPECT_EQ(Field(d, "Graph id"), "5");
  EXPECT_EQ(Field(d, "Correlation id"), "153");
  EXPECT_EQ(Field(d, "Stream"), "13");
  // The viewer's idle lane agrees with the analysis: busy through the graph, one 10 us gap after it.
  ASSERT_EQ(loaded->devices.size(), 1u);
  EXPECT_EQ(loaded->devices[0].active_ns, 50'000);
  std::filesystem::remove_all(dir);
}

TEST_F(ModelRunTest, SearchFindsNamesCaseInsensitively) {
  const SearchResult found = SearchItems(run_.timeline, "CLASSIFIER", 100);
  EXPECT_EQ(found.total, 6);  // three kernels, three NVTX ranges
  EXPECT_EQ(found.names, 2);
  ASSERT_EQ(found.hits.size(), 6u);
  EXPECT_TRUE(std::is_sorted(found.hits.begin(), found.hits.end(),
                             [](const SearchHit& a, const SearchHit& b) { return a.start_ns < b.start_ns; }));
  EXPECT_EQ(SearchItems(run_.timeline, "CLASSIFIER", 2).hits.size(), 2u);
  EXPECT_EQ(SearchItems(run_.timeline, "no such kernel", 10).total, 0);
}

TEST(IterationDetectorTest, PicksTheMostRepeatedNonOverlappingText) {
  const std::vector<TextRange> ranges = {
      {StringId(1), 0, 100},   {StringId(1), 100, 200}, {StringId(1), 200, 300},  // "step": 3, disjoint
      {StringId(2), 0, 50},    {StringId(2), 120, 160}, {StringId(2), 210, 250},  // 3, less time
      {StringId(3), 0, 10},    {StringId(3), 5, 15},    {StringId(3), 20, 30},    // overlaps itself
      {StringId(3), 40, 50},   {StringId(4), 0, 300},                             // once
  };
  const IterationRanges it = DetectIterations(ranges);
  EXPECT_EQ(it.text, StringId(1));
  ASSERT_EQ(it.windows.size(), 3u);
  EXPECT_EQ(it.windows[1], (std::pair<int64_t, int64_t>(100, 200)));
  EXPECT_FALSE(DetectIterations(std::vector<TextRange>{{StringId(4), 0, 300}}).text.valid());
}

}  // namespace
}  // namespace nimble::gui
