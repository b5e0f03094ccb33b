// RunWriter's contract beyond the round trip: the partial-file protocol, failed batches, stats that
// accumulate, and inputs it must refuse.
#include <gtest/gtest.h>

#include "nimble/store/run_reader.h"
#include "nimble/store/run_writer.h"
#include "store_test_util.h"

namespace nimble::store {
namespace {

using testing::TempDirTest;

class StoreRunWriterTest : public TempDirTest {};

// A record that ends before it starts.
template <typename Record>
Record Backwards() {
  Record r;
  r.start_ns = 10;
  r.end_ns = 9;
  return r;
}

bool StartsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

TEST_F(StoreRunWriterTest, NewFileIsBuiltAsPartialAndMovedByCommit) {
  const std::string path = PathOf("run.db");
  StringTable strings;
  std::vector<KernelRecord> kernels;
  for (int i = 0; i < 100; ++i) kernels.push_back(testing::MakeKernel(strings, i));
  auto writer = RunWriter::Create(path, testing::SampleRun(RunMode::kEager), {.batch_records = 10});
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  ASSERT_TRUE((*writer)->AppendKernels(kernels, strings).ok());
  EXPECT_EQ((*writer)->records_written(), 100);
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_TRUE(std::filesystem::exists(path + ".partial"));
  EXPECT_FALSE(std::filesystem::exists(path + ".partial-wal"));  // built in rollback-journal mode
  ASSERT_TRUE((*writer)->Commit().ok());
  // Committed: only the database itself, no log files beside it and no partial.
  EXPECT_EQ(ListDir(), std::vector<std::string>{"run.db"});
  // And in WAL mode, as readers expect: file format versions 2 at bytes 18 and 19 of the header.
  const std::string header = testing::ReadFileBytes(path).substr(0, 20);
  EXPECT_EQ(header[18], 2);
  EXPECT_EQ(header[19], 2);
  // Results written after Commit go to the final file in place.
  ASSERT_TRUE((*writer)->AddStat({"late", 1, Severity::kInfo, "after commit"}).ok());
  ASSERT_TRUE((*writer)->Commit().ok());
  EXPECT_EQ(ListDir(), std::vector<std::string>{"run.db"});
  writer->reset();
  EXPECT_EQ(ListDir(), std::vector<std::string>{"run.db"});
  auto reader = RunReader::Open(path);
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ((*reader)->LoadTrace(RunId(1))->kernels.size(), 100u);
  EXPECT_EQ((*reader)->LoadStats(RunId(1))->size(), 1u);
  reader->reset();
  EXPECT_EQ(ListDir(), std::vector<std::string>{"run.db"}) << "the reader left files behind";
}

TEST_F(StoreRunWriterTest, DestroyingAnUncommittedWriterLeavesNoFile) {
  const std::string path = PathOf("run.db");
  StringTable strings;
  std::vector<KernelRecord> kernels;
  for (int i = 0; i < 50; ++i) kernels.push_back(testing::MakeKernel(strings, i));
  {
    auto writer = RunWriter::Create(path, testing::SampleRun(RunMode::kEager), {.batch_records = 8});
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->AppendKernels(kernels, strings).ok());
    ASSERT_TRUE((*writer)->Flush().ok());
    EXPECT_FALSE(ListDir().empty());
  }
  EXPECT_TRUE(ListDir().empty()) << ListDir().front();
}

TEST_F(StoreRunWriterTest, UncommittedSecondRunKeepsFlushedBatchesAndDropsBufferedOnes) {
  const std::string path = PathOf("run.db");
  ASSERT_TRUE(RunWriter::Create(path, testing::SampleRun(RunMode::kEager)).value()->Commit().ok());
  StringTable strings;
  std::vector<KernelRecord> kernels;
  for (int i = 0; i < 30; ++i) kernels.push_back(testing::MakeKernel(strings, i));
  {
    auto writer = RunWriter::Create(path, testing::SampleRun(RunMode::kAotMulti), {.batch_records = 10});
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->AppendKernels(std::span(kernels).first(25), strings).ok());  // 2 batches + 5 buffered
  }
  auto reader = RunReader::Open(path);
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ((*reader)->Runs()->size(), 2u);
  EXPECT_EQ((*reader)->LoadTrace(RunId(2))->kernels.size(), 20u);
}

TEST_F(StoreRunWriterTest, FailedBatchRollsBackAndLeavesEarlierBatchesIntact) {
  const std::string path = PathOf("run.db");
  StringTable strings;
  std::vector<KernelRecord> good;
  for (int i = 0; i < 300; ++i) good.push_back(testing::MakeKernel(strings, i, 10));
  auto writer = RunWriter::Create(path, testing::SampleRun(RunMode::kEager), {.batch_records = 100});
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->AppendKernels(good, strings).ok());

  // The next batch introduces a new string and has one record ending before it starts.
  std::vector<KernelRecord> bad;
  for (int i = 0; i < 100; ++i) bad.push_back(testing::MakeKernel(strings, 300 + i, 10));
  bad[0].name = strings.Intern("only_in_the_failed_batch");
  bad[50].end_ns = bad[50].start_ns - 1;
  Status failed = (*writer)->AppendKernels(bad, strings);
  ASSERT_FALSE(failed.ok());
  EXPECT_TRUE(StartsWith(failed.message(), path)) << failed.message();
  EXPECT_NE(failed.message().find("kernel_end_after_start"), std::string::npos) << failed.message();
  EXPECT_NE(failed.message().find("record 50"), std::string::npos) << failed.message();
  EXPECT_EQ((*writer)->records_written(), 300);

  // The writer goes on: the string of the failed batch must be written again when next used.
  std::vector<KernelRecord> after;
  for (int i = 0; i < 100; ++i) after.push_back(testing::MakeKernel(strings, 400 + i, 10));
  after[99].name = strings.Find("only_in_the_failed_batch");
  ASSERT_TRUE((*writer)->AppendKernels(after, strings).ok());
  ASSERT_TRUE((*writer)->Commit().ok());
  writer->reset();

  auto reader = RunReader::Open(path);
  ASSERT_TRUE(reader.ok());
  auto trace = (*reader)->LoadTrace(RunId(1));
  ASSERT_TRUE(trace.ok());
  Trace expected;
  expected.strings = strings;
  expected.kernels = good;
  expected.kernels.insert(expected.kernels.end(), after.begin(), after.end());
  testing::ExpectSameTrace(expected, *trace);
}

TEST_F(StoreRunWriterTest, FailedApiCallBatchNamesTheRecordAndKeepsNothingOfIt) {
  const std::string path = PathOf("run.db");
  StringTable strings;
  const StringId launch = strings.Intern("cudaLaunchKernel_v7000");
  std::vector<ApiCallRecord> calls;
  for (int i = 0; i < 100; ++i) {
    calls.push_back({1000 * i, 1000 * i + 500, ApiKind::kRuntime, ThreadId(7), 42, CorrelationId(i), launch, 211, 0});
  }
  auto writer = RunWriter::Create(path, testing::SampleRun(RunMode::kEager), {.batch_records = 100});
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->AppendApiCalls(calls, strings).ok());  // one batch, inserted as a whole
  calls[50].end_ns = calls[50].start_ns - 1;
  Status failed = (*writer)->AppendApiCalls(calls, strings);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.message().find("CUPTI_ACTIVITY_KIND_RUNTIME record 50"), std::string::npos) << failed.message();
  EXPECT_NE(failed.message().find("api_end_after_start"), std::string::npos) << failed.message();
  EXPECT_EQ((*writer)->records_written(), 100);
  ASSERT_TRUE((*writer)->Commit().ok());
  writer->reset();
  auto reader = RunReader::Open(path);
  ASSERT_TRUE(reader.ok());
  auto trace = (*reader)->LoadTrace(RunId(1));
  ASSERT_TRUE(trace.ok());
  calls[50].end_ns = calls[50].start_ns + 500;
  Trace expected;
  expected.strings = strings;
  expected.api_calls = calls;
  testing::ExpectSameTrace(expected, *trace);
}

TEST_F(StoreRunWriterTest, EveryActivityTableRefusesEndBeforeStart) {
  const std::string path = PathOf("run.db");
  StringTable strings;
  auto writer = RunWriter::Create(path, testing::SampleRun(RunMode::kEager), {.batch_records = 1});
  ASSERT_TRUE(writer.ok());
  RunWriter& w = **writer;
  const auto memcpy = Backwards<MemcpyRecord>();
  const auto memset = Backwards<MemsetRecord>();
  const auto sync = Backwards<SyncRecord>();
  const auto api = Backwards<ApiCallRecord>();
  const auto range = Backwards<NvtxRange>();
  const auto overhead = Backwards<OverheadRecord>();
  const auto graph_launch = Backwards<GraphLaunchRecord>();
  EXPECT_EQ(w.AppendMemcpys(std::span(&memcpy, 1)).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(w.AppendMemsets(std::span(&memset, 1)).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(w.AppendSyncs(std::span(&sync, 1)).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(w.AppendApiCalls(std::span(&api, 1), strings).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(w.AppendRanges(std::span(&range, 1), strings).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(w.AppendOverheads(std::span(&overhead, 1), strings).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(w.AppendGraphLaunches(std::span(&graph_launch, 1)).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(w.records_written(), 0);
}

TEST_F(StoreRunWriterTest, StringIdOutsideTheTableRejectsTheWholeCall) {
  const std::string path = PathOf("run.db");
  StringTable strings;
  std::vector<KernelRecord> kernels;
  for (int i = 0; i < 20; ++i) kernels.push_back(testing::MakeKernel(strings, i, 5));
  kernels[15].short_name = StringId(static_cast<int32_t>(strings.size()) + 3);
  auto writer = RunWriter::Create(path, testing::SampleRun(RunMode::kEager), {.batch_records = 4});
  ASSERT_TRUE(writer.ok());
  Status s = (*writer)->AppendKernels(kernels, strings);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(StartsWith(s.message(), path)) << s.message();
  EXPECT_NE(s.message().find("record 15"), std::string::npos) << s.message();
  EXPECT_EQ((*writer)->records_written(), 0) << "records before the bad one were written";
}

TEST_F(StoreRunWriterTest, AddStatAccumulatesByNamePerRun) {
  const std::string path = PathOf("run.db");
  for (int run = 0; run < 2; ++run) {
    auto writer = RunWriter::Create(path, testing::SampleRun(RunMode::kEager));
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->AddStat({"dropped_records", 5, Severity::kWarning, "CUPTI buffer full"}).ok());
    ASSERT_TRUE((*writer)->AddStat({"unmatched_correlation", 1, Severity::kInfo, "no API call"}).ok());
    ASSERT_TRUE((*writer)->AddStat({"dropped_records", 7 + run, Severity::kError, ""}).ok());
    ASSERT_TRUE((*writer)->Commit().ok());
  }
  auto reader = RunReader::Open(path);
  ASSERT_TRUE(reader.ok());
  for (int run = 1; run <= 2; ++run) {
    const std::vector<StatEntry> expected = {{"dropped_records", 12 + (run - 1), Severity::kError, "CUPTI buffer full"},
                                             {"unmatched_correlation", 1, Severity::kInfo, "no API call"}};
    EXPECT_EQ(*(*reader)->LoadStats(RunId(run)), expected);
  }
}

TEST_F(StoreRunWriterTest, InvalidGraphAndAssignmentAreRefusedAndNothingIsReplaced) {
  const std::string path = PathOf("run.db");
  std::mt19937_64 rng(3);
  auto good = testing::MakeRandomResults(rng, 4, 10);
  auto writer = RunWriter::Create(path, testing::SampleRun(RunMode::kEager));
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->WriteGraph(good.graph, good.attribution).ok());
  ASSERT_TRUE((*writer)->WriteAssignment(good.assignment).ok());

  OpGraph dangling = good.graph;
  dangling.edges.push_back({OpId(0), OpId(9)});
  EXPECT_EQ((*writer)->WriteGraph(dangling, good.attribution).code(), StatusCode::kInvalidArgument);
  std::vector<KernelAttribution> bad_attribution = {{OpId(4), KernelIndex(0)}};
  EXPECT_EQ((*writer)->WriteGraph(good.graph, bad_attribution).code(), StatusCode::kInvalidArgument);
  StreamAssignment bad_assignment = good.assignment;
  bad_assignment.op_stream[0] = StreamId(bad_assignment.num_streams);
  Status s = (*writer)->WriteAssignment(bad_assignment);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(StartsWith(s.message(), path)) << s.message();
  ASSERT_TRUE((*writer)->Commit().ok());
  writer->reset();

  auto reader = RunReader::Open(path);
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ((*reader)->LoadGraph(RunId(1))->edges, good.graph.edges);
  EXPECT_EQ(*(*reader)->LoadAttribution(RunId(1)), good.attribution);
  EXPECT_EQ(*(*reader)->LoadAssignment(RunId(1)), std::optional(good.assignment));
}

TEST_F(StoreRunWriterTest, OpenRunOfAMissingRunOrFileFailsNamingTheFile) {
  const std::string path = PathOf("run.db");
  auto none = RunWriter::OpenRun(path, RunId(1));
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(StartsWith(none.status().message(), path));
  EXPECT_TRUE(ListDir().empty());
  ASSERT_TRUE(RunWriter::Create(path, testing::SampleRun(RunMode::kEager)).value()->Commit().ok());
  auto missing = RunWriter::OpenRun(path, RunId(42));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(), path + ": no run 42");
}

TEST_F(StoreRunWriterTest, UpdateRunOfAnotherRunIsRefused) {
  auto writer = RunWriter::Create(PathOf("run.db"), testing::SampleRun(RunMode::kEager));
  ASSERT_TRUE(writer.ok());
  RunInfo other = testing::SampleRun(RunMode::kEager);
  other.id = RunId((*writer)->run_id().value() + 1);
  EXPECT_EQ((*writer)->UpdateRun(other).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace nimble::store
