// StoreSink into a real run database, read back with RunReader: records, devices, stats and the
// iteration count arrive; a sink that never finishes leaves no database behind.
#include "nimble/collector/store_sink.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "nimble/collector/record_converter.h"
#include "nimble/collector/synthetic_records.h"
#include "nimble/store/run_reader.h"

namespace nimble::collector {
namespace {

RunInfo ProgramRun() {
  RunInfo run;
  run.model = "./sample";
  run.mode = RunMode::kProgram;
  run.command = "./sample -n 2";
  return run;
}

// Converts one hand-built record (kept in a named variable: CUPTI records are read in place).
template <typename Record>
void Feed(RecordConverter& converter, const Record& record, ActivityChunk& chunk) {
  converter.Convert(reinterpret_cast<const ActivityRecord&>(record), chunk);
}

std::string TempDb(const std::string& name) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("nimble_store_sink_" + std::to_string(getpid()) + "_" + name + ".db");
  std::filesystem::remove(path);
  return path.string();
}

TEST(StoreSinkTest, WritesAReadableRun) {
  const std::string path = TempDb("ok");
  auto sink = StoreSink::Create(path, ProgramRun());
  ASSERT_TRUE(sink.ok()) << sink.status().ToString();
  RecordConverter converter(ConverterOptions{.iteration_range = "iteration"});
  ActivityChunk chunk;
  using namespace synthetic;
  Feed(converter, Marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 1, 10, "iteration"), chunk);
  Feed(converter, Kernel(100, 200, 7, 1, "_Z11spin_kernelx"), chunk);
  Feed(converter, Kernel(150, 260, 8, 2, "_Z11spin_kernelx", 5), chunk);
  Feed(converter, Marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 1, 300, nullptr), chunk);
  ASSERT_TRUE((*sink)->Consume(chunk, converter.strings()).ok());

  SessionSummary summary;
  summary.stats = converter.stats().ToEntries();
  summary.iterations = static_cast<int32_t>(converter.stats().iterations);
  DeviceInfo gpu;
  gpu.id = DeviceId(0);
  gpu.name = converter.mutable_strings().Intern("Test GPU");
  gpu.sm_count = 132;
  summary.devices.push_back(gpu);
  ASSERT_TRUE((*sink)->Finish(summary, converter.strings()).ok());

  auto reader = store::RunReader::Open(path);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto run = (*reader)->Run((*sink)->run().id);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(run->mode, RunMode::kProgram);
  EXPECT_EQ(run->iterations, 1);
  EXPECT_EQ(run->device, "Test GPU");
  auto trace = (*reader)->LoadTrace(run->id);
  ASSERT_TRUE(trace.ok()) << trace.status().ToString();
  ASSERT_EQ(trace->kernels.size(), 2u);
  EXPECT_EQ(trace->strings.Get(trace->kernels[0].short_name), "spin_kernel");
  EXPECT_EQ(trace->kernels[1].graph_node_id, 5);
  ASSERT_EQ(trace->ranges.size(), 1u);
  EXPECT_EQ(trace->strings.Get(trace->ranges[0].text), "iteration");
  ASSERT_EQ(trace->devices.size(), 1u);
  EXPECT_EQ(trace->devices[0].sm_count, 132);
  auto stats = (*reader)->LoadStats(run->id);
  ASSERT_TRUE(stats.ok());
  bool found = false;
  for (const StatEntry& s : *stats) {
    if (s.name == "collector.dropped_records") {
      found = true;
      EXPECT_EQ(s.value, 0);
    }
  }
  EXPECT_TRUE(found);
  reader->reset();
  std::filesystem::remove(path);
}

TEST(StoreSinkTest, AnUnfinishedSinkLeavesNoDatabase) {
  const std::string path = TempDb("abandoned");
  {
    auto sink = StoreSink::Create(path, ProgramRun());
    ASSERT_TRUE(sink.ok()) << sink.status().ToString();
  }
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::exists(path + ".partial"));
}

TEST(StoreSinkTest, AnUnwritablePathFailsAtCreate) {
  auto sink = StoreSink::Create("/nonexistent-nimble-dir/run.db", ProgramRun());
  EXPECT_FALSE(sink.ok());
}

}  // namespace
}  // namespace nimble::collector
