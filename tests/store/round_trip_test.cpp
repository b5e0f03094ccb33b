// Everything RunWriter writes, RunReader reads back unchanged: every record type and every Nimble
// table, across runs, batches and random inputs.
#include <gtest/gtest.h>

#include "nimble/store/run_reader.h"
#include "nimble/store/run_writer.h"
#include "store_test_util.h"

namespace nimble::store {
namespace {

using testing::TempDirTest;

class StoreRoundTripTest : public TempDirTest {
 protected:
  std::unique_ptr<RunReader> OpenReader(const std::string& path) {
    auto reader = RunReader::Open(path);
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    return reader.ok() ? std::move(reader).value() : nullptr;
  }
};

// Writes a trace and results in one run, then compares everything the reader loads.
void WriteRun(RunWriter& writer, const Trace& trace, const testing::RandomResults& results) {
  ASSERT_TRUE(writer.AppendTrace(trace).ok());
  ASSERT_TRUE(writer.WriteGraph(results.graph, results.attribution).ok());
  ASSERT_TRUE(writer.WriteAssignment(results.assignment).ok());
  ASSERT_TRUE(writer.WriteMetrics(results.metrics).ok());
  ASSERT_TRUE(writer.WriteSpeedups(results.speedups).ok());
  for (const StatEntry& s : results.stats) ASSERT_TRUE(writer.AddStat(s).ok());
}

void ExpectRun(const RunReader& reader, RunId run, const Trace& trace, const testing::RandomResults& results) {
  auto loaded = reader.LoadTrace(run);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  testing::ExpectSameTrace(trace, *loaded);
  auto graph = reader.LoadGraph(run);
  ASSERT_TRUE(graph.ok()) << graph.status().ToString();
  EXPECT_EQ(graph->ops, results.graph.ops);
  EXPECT_EQ(graph->edges, results.graph.edges);
  auto attribution = reader.LoadAttribution(run);
  ASSERT_TRUE(attribution.ok());
  EXPECT_EQ(*attribution, results.attribution);
  auto assignment = reader.LoadAssignment(run);
  ASSERT_TRUE(assignment.ok());
  ASSERT_TRUE(assignment->has_value());
  EXPECT_EQ(**assignment, results.assignment);
  auto metrics = reader.LoadMetrics(run);
  ASSERT_TRUE(metrics.ok());
  EXPECT_EQ(*metrics, results.metrics);
  auto speedups = reader.LoadSpeedups(run);
  ASSERT_TRUE(speedups.ok());
  EXPECT_EQ(*speedups, results.speedups);
  auto stats = reader.LoadStats(run);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(*stats, results.stats);
}

TEST_F(StoreRoundTripTest, RandomTracesAndResultsSurviveForManySeedsAndBatchSizes) {
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 rng(seed);
    const Trace trace = testing::RandomTrace(rng, static_cast<int>(seed * 17));
    const auto results = testing::MakeRandomResults(rng, static_cast<int>(seed % 9), static_cast<int64_t>(trace.kernels.size()));
    const std::string path = PathOf("seed" + std::to_string(seed) + ".db");
    RunInfo info = testing::SampleRun(RunMode::kEager);
    // Batch sizes from one record per transaction to everything in one.
    auto writer = RunWriter::Create(path, info, {.batch_records = static_cast<int64_t>(1 + (seed * 37) % 300)});
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    WriteRun(**writer, trace, results);
    ASSERT_TRUE((*writer)->Commit().ok());
    info.id = (*writer)->run_id();
    writer->reset();
    auto reader = OpenReader(path);
    ASSERT_NE(reader, nullptr);
    auto run = reader->Run(info.id);
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(*run, info);
    ExpectRun(*reader, info.id, trace, results);
  }
}

TEST_F(StoreRoundTripTest, SeveralRunsInOneFileStayApart) {
  const std::string path = PathOf("runs.db");
  std::mt19937_64 rng(99);
  std::vector<Trace> traces;
  std::vector<testing::RandomResults> results;
  std::vector<RunInfo> infos;
  for (int r = 0; r < 3; ++r) {
    traces.push_back(testing::RandomTrace(rng, 40 + r));
    results.push_back(testing::MakeRandomResults(rng, 4 + r, static_cast<int64_t>(traces.back().kernels.size())));
    RunInfo info = testing::SampleRun(r == 0 ? RunMode::kEager : RunMode::kAotMulti);
    info.iterations = 10 + r;
    auto writer = RunWriter::Create(path, info, {.batch_records = 50});
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    WriteRun(**writer, traces.back(), results.back());
    ASSERT_TRUE((*writer)->Commit().ok());
    EXPECT_EQ(ListDir(), std::vector<std::string>{"runs.db"}) << "a committed append left files beside the database";
    info.id = (*writer)->run_id();
    infos.push_back(info);
  }
  auto reader = OpenReader(path);
  ASSERT_NE(reader, nullptr);
  auto runs = reader->Runs();
  ASSERT_TRUE(runs.ok());
  EXPECT_EQ(*runs, infos);
  for (size_t r = 0; r < infos.size(); ++r) {
    SCOPED_TRACE("run " + std::to_string(r));
    ExpectRun(*reader, infos[r].id, traces[r], results[r]);
  }
}

TEST_F(StoreRoundTripTest, KernelIndexIsInsertionOrderAcrossBatchesAndReopens) {
  const std::string path = PathOf("order.db");
  StringTable strings;
  std::vector<KernelRecord> kernels;
  // Start times deliberately out of order, so that an ORDER BY start would be caught.
  for (int64_t i = 0; i < 1000; ++i) {
    KernelRecord k = testing::MakeKernel(strings, (i * 7919) % 1000);
    kernels.push_back(k);
  }
  auto writer = RunWriter::Create(path, testing::SampleRun(RunMode::kEager), {.batch_records = 64});
  ASSERT_TRUE(writer.ok());
  const RunId run = (*writer)->run_id();
  ASSERT_TRUE((*writer)->AppendKernels(std::span(kernels).first(600), strings).ok());
  ASSERT_TRUE((*writer)->Commit().ok());
  writer->reset();
  // A second writer on the same run continues the numbering where the first stopped.
  auto more = RunWriter::OpenRun(path, run, {.batch_records = 64});
  ASSERT_TRUE(more.ok()) << more.status().ToString();
  ASSERT_TRUE((*more)->AppendKernels(std::span(kernels).subspan(600), strings).ok());
  ASSERT_TRUE((*more)->Commit().ok());
  EXPECT_EQ((*more)->records_written(), 400);
  more->reset();

  auto reader = OpenReader(path);
  auto trace = reader->LoadTrace(run);
  ASSERT_TRUE(trace.ok());
  Trace expected;
  expected.strings = strings;
  expected.kernels = kernels;
  testing::ExpectSameTrace(expected, *trace);
}

TEST_F(StoreRoundTripTest, StringsAreStoredOnceAndSharedBetweenRuns) {
  const std::string path = PathOf("strings.db");
  for (int r = 0; r < 2; ++r) {
    StringTable strings;  // each run's own numbering: "b" is id 0 in the second run
    if (r == 1) strings.Intern("b");
    std::vector<KernelRecord> kernels;
    for (int i = 0; i < 10; ++i) {
      KernelRecord k = testing::MakeKernel(strings, i, 1);
      k.name = strings.Intern(i % 2 ? "a" : "b");
      kernels.push_back(k);
    }
    auto writer = RunWriter::Create(path, testing::SampleRun(RunMode::kEager), {.batch_records = 3});
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->AppendKernels(kernels, strings).ok());
    ASSERT_TRUE((*writer)->Commit().ok());
  }
  auto reader = OpenReader(path);
  auto counts = reader->TableCounts();
  ASSERT_TRUE(counts.ok());
  int64_t string_rows = -1;
  for (const TableCount& c : *counts) {
    if (c.table == "StringIds") string_rows = c.rows;
  }
  EXPECT_EQ(string_rows, 3);  // "a", "b" and the one short name, across both runs
  for (int64_t run = 1; run <= 2; ++run) {
    auto trace = reader->LoadTrace(RunId(run));
    ASSERT_TRUE(trace.ok());
    ASSERT_EQ(trace->kernels.size(), 10u);
    for (size_t i = 0; i < 10; ++i) EXPECT_EQ(trace->strings.Get(trace->kernels[i].name), i % 2 ? "a" : "b");
  }
}

TEST_F(StoreRoundTripTest, ResultsCanBeReplacedAndRunUpdated) {
  const std::string path = PathOf("results.db");
  std::mt19937_64 rng(5);
  auto first = testing::MakeRandomResults(rng, 6, 0);
  auto second = testing::MakeRandomResults(rng, 3, 0);
  auto writer = RunWriter::Create(path, testing::SampleRun(RunMode::kEager));
  ASSERT_TRUE(writer.ok());
  const RunId run = (*writer)->run_id();
  ASSERT_TRUE((*writer)->Commit().ok());
  writer->reset();

  auto results = RunWriter::OpenRun(path, run);
  ASSERT_TRUE(results.ok()) << results.status().ToString();
  for (const auto* r : {&first, &second}) {
    ASSERT_TRUE((*results)->WriteGraph(r->graph, r->attribution).ok());
    ASSERT_TRUE((*results)->WriteAssignment(r->assignment).ok());
    ASSERT_TRUE((*results)->WriteMetrics(r->metrics).ok());
    ASSERT_TRUE((*results)->WriteSpeedups(r->speedups).ok());
  }
  RunInfo updated = testing::SampleRun(RunMode::kEager);
  updated.iterations = 1234;
  ASSERT_TRUE((*results)->UpdateRun(updated).ok());
  results->reset();

  auto reader = OpenReader(path);
  auto graph = reader->LoadGraph(run);
  ASSERT_TRUE(graph.ok());
  EXPECT_EQ(graph->ops, second.graph.ops);
  EXPECT_EQ(graph->edges, second.graph.edges);
  EXPECT_EQ(*reader->LoadAssignment(run), std::optional(second.assignment));
  EXPECT_EQ(*reader->LoadMetrics(run), second.metrics);
  EXPECT_EQ(*reader->LoadSpeedups(run), second.speedups);
  updated.id = run;
  EXPECT_EQ(*reader->Run(run), updated);
}

TEST_F(StoreRoundTripTest, EmptyRunLoadsEmptyAndHasNoAssignment) {
  const std::string path = PathOf("empty.db");
  auto writer = RunWriter::Create(path, testing::SampleRun(RunMode::kProgram));
  ASSERT_TRUE(writer.ok());
  const RunId run = (*writer)->run_id();
  ASSERT_TRUE((*writer)->Commit().ok());
  writer->reset();
  auto reader = OpenReader(path);
  auto trace = reader->LoadTrace(run);
  ASSERT_TRUE(trace.ok());
  EXPECT_TRUE(trace->kernels.empty() && trace->api_calls.empty() && trace->devices.empty());
  auto assignment = reader->LoadAssignment(run);
  ASSERT_TRUE(assignment.ok());
  EXPECT_FALSE(assignment->has_value());
  EXPECT_TRUE(reader->LoadGraph(run)->ops.empty());
  auto missing = reader->LoadTrace(RunId(run.value() + 1));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message().rfind(path, 0), 0u) << missing.status().message();
}

}  // namespace
}  // namespace nimble::store
