// The import workflow end to end: a torch.profiler trace becomes a run that workflow::Report reports
// with the GPU active time, idle time and gap causes worked out by hand for each fixture, and with the
// figures a brute-force pass over the same file's DOM gives (for every fixture in kFixtures: recorded
// GPU traces are one line each); gzip and plain agree; every kind of bad input gives an error naming
// the file and leaves no output and no .partial behind.
#include "nimble/workflow/import.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <sqlite3.h>

#include "import_test_support.h"
#include "nimble/store/nsys_export.h"
#include "nimble/workflow/report.h"
#include "scratch_dir_test.h"

namespace nimble::workflow {
namespace {

namespace fs = std::filesystem;
using testing_support::BruteForce;
using testing_support::ReadBytes;
using testing_support::WriteBytes;

const std::string kData = std::string(NIMBLE_SOURCE_DIR) + "/tests/workflow/data/kineto/";

ImportOptions Opts(const std::string& input, const std::string& output, const std::string& command = "") {
  ImportOptions options;
  options.input = input;
  options.output = output;
  options.command = command;
  return options;
}

// Every trace the import must read; add recorded traces here (one line each).
const char* const kFixtures[] = {
    "tests/workflow/data/kineto/profiler_steps.json",
    "tests/workflow/data/kineto/profiler_steps.json.gz",
    "tests/workflow/data/kineto/cuda_graph.json",
};

class ImportWorkflowTest : public nimble::testing::ScratchDirTest {
 protected:

  std::string Out(const std::string& name = "run.db") const { return (dir_ / name).string(); }

  // The report of the run just imported into `db`, nothing stored.
  static RunReport ReportOf(const std::string& db) {
    auto opened = store::RunDatabase::Open(db, store::Access::kRead);
    EXPECT_TRUE(opened.ok()) << opened.status().ToString();
    if (!opened.ok()) return {};
    ReportOptions options;
    options.store = false;
    auto result = Report(**opened, options);
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    if (!result.ok() || result->runs.empty()) return {};
    return result->runs.back();
  }

  // Imports `input` expecting an error; checks it names the file and nothing is left at `output`.
  void ExpectRefused(const std::string& input, const std::string& why) {
    const std::string output = Out("refused.db");
    auto result = Import(Opts(input, output));
    ASSERT_FALSE(result.ok()) << why;
    EXPECT_NE(result.status().message().find(input), std::string::npos) << why << ": " << result.status().message();
    EXPECT_NE(result.status().code(), StatusCode::kInvalidArgument) << why << ": bad input is not bad usage";
    EXPECT_FALSE(fs::exists(output)) << why;
    EXPECT_FALSE(fs::exists(output + ".partial")) << why;
  }

  // A copy of the plain fixture with `from` replaced by `to` (once), as a new file.
  std::string Edited(const std::string& name, const std::string& from, const std::string& to) {
    std::string text = ReadBytes(kData + "profiler_steps.json");
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    const std::string path = (dir_ / name).string();
    WriteBytes(path, text);
    return path;
  }

};

TEST_F(ImportWorkflowTest, ProfilerStepsReportsTheTimesWorkedOutByHand) {
  auto result = Import(Opts(kData + "profiler_steps.json", Out()));
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->run.id, RunId(1));
  EXPECT_EQ(result->iteration_range, "ProfilerStep");
  EXPECT_EQ(result->streams, 2);
  ASSERT_EQ(result->warnings.size(), 1u);
  EXPECT_EQ(result->warnings[0].name, "import.kernels_without_launch");
  const RunReport run = ReportOf(Out());
  // ProfilerStep wins over aten::empty, which repeats three times without overlap.
  EXPECT_EQ(run.iteration_range, "ProfilerStep");
  EXPECT_EQ(run.run.command, "nimble-prof import " + kData + "profiler_steps.json");
  ASSERT_EQ(run.report.devices.size(), 1u);
  const analysis::DeviceReport& dev = run.report.devices[0];
  // GPU work, µs after 198093000000: memset [100.5, 101.5], gemm [112.125, 132.125], relu [135.125, 140.125],
  // gemm [185.375, 205.375] with an add [190, 200.5] beside it on stream 13, triton [206, 208].
  // Active 1 + 20 + 5 + 20 + 2 = 48 µs of the 107.5 µs from 100.5 to 208.
  EXPECT_EQ(dev.run.active_ns, 48000);
  EXPECT_EQ(dev.run.idle_ns, 59500);
  EXPECT_EQ(dev.run.overlap_ns, 10500);
  EXPECT_EQ(dev.run.kernel_count, 5);
  // Gaps: [101.5, 112.125] while the HtoD copy ran (copy); [132.125, 135.125] before the relu, launched at
  // 133 (late); [140.125, 185.375] during the stream sync (sync); [205.375, 206] before the Triton kernel,
  // whose launch is not in the trace (other).
  const analysis::GapTotals& by = dev.run.idle_by_cause;
  EXPECT_EQ(by.dur_ns_of(analysis::GapCause::kMemoryCopy), 10625);
  EXPECT_EQ(by.dur_ns_of(analysis::GapCause::kHostLaunchLate), 3000);
  EXPECT_EQ(by.dur_ns_of(analysis::GapCause::kSynchronization), 45250);
  EXPECT_EQ(by.dur_ns_of(analysis::GapCause::kOther), 625);
  ASSERT_FALSE(dev.longest_gaps.empty());
  EXPECT_EQ(dev.longest_gaps[0].dur_ns, 45250);
  // Steps [100, 160] and [160, 210]: 26 µs and 22 µs of GPU work.
  ASSERT_EQ(dev.iterations.size(), 2u);
  EXPECT_EQ(dev.iterations[0].active_ns, 26000);
  EXPECT_EQ(dev.iterations[0].idle_ns, 34000);
  EXPECT_EQ(dev.iterations[1].active_ns, 22000);
  EXPECT_EQ(dev.iterations[1].idle_ns, 28000);
}

TEST_F(ImportWorkflowTest, CudaGraphReportsTheTimesWorkedOutByHand) {
  auto result = Import(Opts(kData + "cuda_graph.json", Out()));
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->iteration_range, "");
  const RunReport run = ReportOf(Out());
  ASSERT_EQ(run.report.devices.size(), 1u);
  const analysis::TimelineMetrics& m = run.report.devices[0].run;
  // Stream 21, µs after ...000000.125: graph 1 [20,25] [25.5,30.5] [31,33], graph 2 [48,53] [53.5,58.5]
  // [59,61], a driver launch [70,72.5], a DtoD copy [76,77] (device work), a fill [90,91]: 28.5 of 71 µs.
  EXPECT_EQ(m.active_ns, 28500);
  EXPECT_EQ(m.idle_ns, 42500);
  const analysis::GapTotals& by = m.idle_by_cause;
  // Inside a graph the next node's launch is the graph's, earlier than the gap: other (4 x 0.5 µs).
  EXPECT_EQ(by.dur_ns_of(analysis::GapCause::kOther), 2000);
  // Before graph 2 (launched at 40 > 33), the driver launch (62 > 61) and the copy (73 > 72.5): late.
  EXPECT_EQ(by.dur_ns_of(analysis::GapCause::kHostLaunchLate), 15000 + 9000 + 3500);
  // [77, 90] during the Event Sync.
  EXPECT_EQ(by.dur_ns_of(analysis::GapCause::kSynchronization), 13000);
  EXPECT_EQ(by.dur_ns_of(analysis::GapCause::kMemoryCopy), 0);
}

TEST_F(ImportWorkflowTest, EveryFixtureAgreesWithABruteForcePassOverItsDom) {
  int n = 0;
  for (const char* fixture : kFixtures) {
    const std::string input = std::string(NIMBLE_SOURCE_DIR) + "/" + fixture;
    const std::string output = Out("fixture" + std::to_string(n++) + ".db");
    SCOPED_TRACE(fixture);
    auto result = Import(Opts(input, output));
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    const BruteForce expected = BruteForce::Of(input);
    EXPECT_EQ(result->kernels, expected.kernels);
    EXPECT_EQ(result->memcpys, expected.memcpys);
    EXPECT_EQ(result->memsets, expected.memsets);
    EXPECT_EQ(result->syncs, expected.syncs);
    EXPECT_EQ(result->api_calls, expected.api_calls);
    EXPECT_EQ(result->ranges, expected.ranges);
    EXPECT_EQ(result->run.iterations, expected.profiler_steps);
    EXPECT_EQ(result->events_read(), expected.events);
    const RunReport run = ReportOf(output);
    ASSERT_EQ(run.report.devices.size(), expected.active_ns.size());
    for (const analysis::DeviceReport& dev : run.report.devices) {
      const int32_t id = dev.run.device.value();
      ASSERT_TRUE(expected.active_ns.contains(id));
      // The DOM holds times as doubles: allow their rounding, a few ns per interval at most.
      EXPECT_NEAR(dev.run.active_ns, expected.active_ns.at(id), expected.tolerance_ns);
      EXPECT_NEAR(dev.run.window.end_ns - dev.run.window.start_ns, expected.span_ns.at(id), expected.tolerance_ns);
    }
  }
}

TEST_F(ImportWorkflowTest, ImportsAnNsightSystemsExportThroughTheStoreReader) {
  const std::string nsys = std::string(NIMBLE_SOURCE_DIR) + "/tests/store/data/nsys/sample_schema_synthetic.sqlite";
  auto result = Import(Opts(nsys, Out()));
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->format.format, TraceFormat::kNsysSqlite);
  EXPECT_EQ(result->source_format, "nsys-sqlite");
  auto direct = store::ReadNsysExport(nsys);
  ASSERT_TRUE(direct.ok()) << direct.status().ToString();
  EXPECT_EQ(result->kernels, static_cast<int64_t>(direct->trace.kernels.size()));
  EXPECT_EQ(result->api_calls, static_cast<int64_t>(direct->trace.api_calls.size()));
  EXPECT_GT(result->kernels, 0);
  const RunReport run = ReportOf(Out());
  ASSERT_FALSE(run.report.devices.empty());
  EXPECT_GT(run.report.devices[0].run.active_ns, 0);
}

TEST_F(ImportWorkflowTest, AddsARunToAnExistingDatabase) {
  ASSERT_TRUE(Import(Opts(kData + "cuda_graph.json", Out())).ok());
  auto second = Import(Opts(kData + "profiler_steps.json.gz", Out(), "mine"));
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(second->run.id, RunId(2));
  EXPECT_TRUE(second->format.gzip);
  const RunReport run = ReportOf(Out());
  EXPECT_EQ(run.run.command, "mine");
  EXPECT_EQ(run.report.devices[0].run.active_ns, 48000);
}

TEST_F(ImportWorkflowTest, BadInputIsRefusedWithTheFileNamedAndNothingWritten) {
  ExpectRefused((dir_ / "missing.json").string(), "nonexistent path");
  fs::create_directories(dir_ / "a_directory");
  ExpectRefused((dir_ / "a_directory").string(), "directory");
  WriteBytes((dir_ / "empty.json").string(), "");
  ExpectRefused((dir_ / "empty.json").string(), "empty file");
  WriteBytes((dir_ / "blank.json").string(), "  \n\t ");
  ExpectRefused((dir_ / "blank.json").string(), "white space");
  WriteBytes((dir_ / "text.json").string(), "hello, world");
  ExpectRefused((dir_ / "text.json").string(), "not JSON");
  const std::string full = ReadBytes(kData + "profiler_steps.json");
  WriteBytes((dir_ / "truncated.json").string(), full.substr(0, full.size() / 2));
  ExpectRefused((dir_ / "truncated.json").string(), "truncated");
  ExpectRefused(Edited("malformed.json", "\"ph\": \"X\", \"cat\": \"kernel\"", "\"ph\": \"X\" \"cat\": \"kernel\""),
                "malformed");
  ExpectRefused(Edited("ts_string.json", "\"ts\": 198093000112.125", "\"ts\": \"soon\""), "ts of the wrong type");
  ExpectRefused(Edited("grid_string.json", "\"grid\": [128, 1, 1]", "\"grid\": \"128x1x1\""), "grid of the wrong type");
  ExpectRefused(Edited("block_object.json", "\"block\": [256, 1, 1]", "\"block\": [256, {\"x\": [1]}]"),
                "an object inside block");
  ExpectRefused(Edited("events_number.json", "\"traceEvents\": [", "\"traceEvents\": 5, \"x\": ["), "traceEvents a number");
  ExpectRefused(Edited("no_dur.json", "\"ts\": 198093000112.125, \"dur\": 20.000,", "\"ts\": 198093000112.125,"),
                "kernel without dur");
  ExpectRefused(Edited("no_ph.json", "\"ph\": \"X\", \"cat\": \"gpu_memset\"", "\"cat\": \"gpu_memset\""), "event without ph");
  ExpectRefused(Edited("no_events.json", "\"traceEvents\"", "\"events\""), "no traceEvents");
  ExpectRefused(Edited("device_props.json", "\"numSms\": 132", "\"numSms\": \"many\""), "deviceProperties of the wrong type");
  for (const char* text : {"{\"traceEvents\": []}", "[]"}) {
    const std::string empty_trace = (dir_ / "empty_trace.json").string();
    WriteBytes(empty_trace, text);
    ExpectRefused(empty_trace, text);
    const auto refused = Import(Opts(empty_trace, Out("empty_trace.db")));
    ASSERT_FALSE(refused.ok()) << text;
    EXPECT_NE(refused.status().message().find("holds no events to import"), std::string::npos)
        << refused.status().message();
  }
  // gzip: cut short, and damaged in the middle.
  const std::string gz = ReadBytes(kData + "profiler_steps.json.gz");
  WriteBytes((dir_ / "cut.json.gz").string(), gz.substr(0, gz.size() - 20));
  ExpectRefused((dir_ / "cut.json.gz").string(), "truncated gzip");
  std::string damaged = gz;
  for (size_t i = gz.size() / 3; i < gz.size() / 3 + 16; ++i) damaged[i] = static_cast<char>(damaged[i] ^ 0x5a);
  WriteBytes((dir_ / "damaged.json.gz").string(), damaged);
  ExpectRefused((dir_ / "damaged.json.gz").string(), "damaged gzip");
  // Another SQLite file, neither an Nsight Systems export nor a run database.
  const std::string other = (dir_ / "other.sqlite").string();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(other.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE t(x); INSERT INTO t VALUES (1);", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  ExpectRefused(other, "another SQLite file");
  // A Nimble run database is one already.
  ASSERT_TRUE(Import(Opts(kData + "cuda_graph.json", Out("already.db"))).ok());
  ExpectRefused(Out("already.db"), "a run database");
}

// A CPU-only profile (no CUDA activity asked for) imports, but says that it has no GPU time to report.
TEST_F(ImportWorkflowTest, ATraceWithoutGpuWorkIsImportedWithAWarning) {
  const std::string cpu_only = (dir_ / "cpu_only.json").string();
  WriteBytes(cpu_only, R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 100.0, "dur": 5.0}]})");
  auto result = Import(Opts(cpu_only, Out("cpu_only.db")));
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->kernels, 0);
  const auto warned = std::find_if(result->warnings.begin(), result->warnings.end(),
                                   [](const StatEntry& s) { return s.name == "import.no_gpu_activity"; });
  ASSERT_NE(warned, result->warnings.end());
  EXPECT_NE(warned->description.find("ProfilerActivity.CUDA"), std::string::npos) << warned->description;
  // A trace with GPU work has no such warning.
  auto gpu = Import(Opts(kData + "cuda_graph.json", Out("gpu.db")));
  ASSERT_TRUE(gpu.ok()) << gpu.status().ToString();
  for (const StatEntry& s : gpu->warnings) EXPECT_NE(s.name, "import.no_gpu_activity");
}

TEST_F(ImportWorkflowTest, ARefusedImportLeavesAnExistingDatabaseAsItWas) {
  ASSERT_TRUE(Import(Opts(kData + "cuda_graph.json", Out())).ok());
  const std::string before = ReadBytes(Out());
  const std::string bad = Edited("bad.json", "\"dur\": 20.000", "\"dur\": null");
  EXPECT_FALSE(Import(Opts(bad, Out())).ok());
  EXPECT_EQ(ReadBytes(Out()), before);
}

TEST_F(ImportWorkflowTest, UsageErrorsAreInvalidArgument) {
  EXPECT_EQ(Import(Opts(kData + "cuda_graph.json", "")).status().code(),
            StatusCode::kInvalidArgument);
  const std::string copy = Out("trace.json");
  fs::copy_file(kData + "cuda_graph.json", copy);
  EXPECT_EQ(Import(Opts(copy, copy)).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ReadBytes(copy), ReadBytes(kData + "cuda_graph.json"));
}

TEST_F(ImportWorkflowTest, ErrorsNameThePlace) {
  auto result = Import(Opts(Edited("ts_string.json", "\"ts\": 198093000112.125", "\"ts\": \"soon\""), Out()));
  ASSERT_FALSE(result.ok());
  const std::string m = result.status().message();
  EXPECT_NE(m.find("traceEvents[33]"), std::string::npos) << m;
  EXPECT_NE(m.find("'ts'"), std::string::npos) << m;
  EXPECT_NE(m.find("line "), std::string::npos) << m;
  auto malformed = Import(Opts(Edited("m.json", "\"cbid\": 131,", "\"cbid\": 131,,"), Out()));
  ASSERT_FALSE(malformed.ok());
  EXPECT_NE(malformed.status().message().find("byte "), std::string::npos) << malformed.status().message();
}

}  // namespace
}  // namespace nimble::workflow
