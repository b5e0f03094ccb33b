// The Chrome export on copies of the bundled recorded runs, read back as JSON: well-formed events,
// nesting per thread, paired arrows, the run's kernels and the report's idle time; gzip output; several
// runs in one file; and bad input that names the file and leaves no output behind.
#include "nimble/workflow/export_chrome.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "chrome_trace_check.h"
#include "export_chrome_layout.h"
#include "export_chrome_timeline.h"
#include "nimble/store/run_writer.h"
#include "nimble/workflow/import.h"
#include "nimble/workflow/report.h"
#include "scratch_dir_test.h"

namespace nimble::workflow {
namespace {

namespace fs = std::filesystem;
using testing::CheckChromeTrace;
using testing::ChromeTraceCheck;
using testing::ReadTraceBytes;

class ExportChromeTest : public nimble::testing::ScratchDirTest {
 protected:
  static StatusOr<ChromeExportResult> Export(const std::string& db_path, const std::string& out,
                                             ChromeExportOptions options = {}) {
    NIMBLE_ASSIGN_OR_RETURN(auto db, store::RunDatabase::Open(db_path, store::Access::kRead));
    return ExportChrome(*db, out, options);
  }
  static ReportResult ReportOf(const std::string& db_path) {
    auto db = store::RunDatabase::Open(db_path, store::Access::kRead);
    EXPECT_TRUE(db.ok()) << db.status().ToString();
    ReportOptions options;
    options.store = false;
    auto report = Report(**db, options);
    EXPECT_TRUE(report.ok()) << report.status().ToString();
    return std::move(*report);
  }
  static Trace TraceOf(const std::string& db_path, RunId run) {
    auto reader = store::RunReader::Open(db_path);
    EXPECT_TRUE(reader.ok());
    auto trace = (*reader)->LoadTrace(run);
    EXPECT_TRUE(trace.ok());
    return std::move(*trace);
  }
  static ChromeTraceCheck Check(const std::string& path) {
    const nlohmann::json json = nlohmann::json::parse(ReadTraceBytes(path), nullptr, false);
    EXPECT_FALSE(json.is_discarded()) << path << " is not JSON";
    ChromeTraceCheck check = CheckChromeTrace(json);
    for (const std::string& p : check.problems) ADD_FAILURE() << p;
    return check;
  }
  // Nothing at `out`, nor its partial file.
  static void ExpectNoOutput(const std::string& out) {
    EXPECT_FALSE(fs::exists(out)) << out;
    EXPECT_FALSE(fs::exists(out + ".partial")) << out;
  }
};

ChromeExportOptions OnlyRun(int64_t run) {
  ChromeExportOptions options;
  options.run = run;
  return options;
}

RunInfo NamedRun(const std::string& model) {
  RunInfo run;
  run.model = model;
  return run;
}

int64_t KernelNs(const Trace& trace) {
  int64_t ns = 0;
  for (const KernelRecord& k : trace.kernels) ns += k.dur_ns();
  return ns;
}

TEST_F(ExportChromeTest, ProgramRunHasItsKernelsGapsAndArrows) {
  const std::string db = Copy("concurrent_streams.db");
  const std::string out = Out("streams.json");
  auto result = Export(db, out);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_FALSE(fs::exists(out + ".partial"));
  const ChromeTraceCheck check = Check(out);
  const ReportResult report = ReportOf(db);
  ASSERT_EQ(report.runs.size(), 1u);
  const Trace trace = TraceOf(db, report.runs[0].run.id);
  EXPECT_EQ(check.count_by_category.at("kernel"), static_cast<int64_t>(trace.kernels.size()));
  EXPECT_EQ(check.ns_by_category.at("kernel"), KernelNs(trace));
  EXPECT_EQ(check.kernel_correlations.size(), trace.kernels.size());  // each kernel once
  const auto driver = check.count_by_category.find("cuda_driver");
  EXPECT_EQ(check.count_by_category.at("cuda_runtime") + (driver == check.count_by_category.end() ? 0 : driver->second),
            static_cast<int64_t>(trace.api_calls.size()));
  EXPECT_EQ(check.count_by_category.at("user_annotation"), static_cast<int64_t>(trace.ranges.size()));
  for (const auto& device : report.runs[0].report.devices) {
    EXPECT_EQ(check.idle_ns_by_device.at(device.run.device.value()), device.run.idle_ns);
  }
  EXPECT_GT(report.runs[0].report.devices.at(0).run.idle_ns, 0);
  // Each gap names the work that ended it.
  EXPECT_NE(ReadTraceBytes(out).find("\"next work\":\"SpinKernel(unsigned long)\""), std::string::npos);
  // The host + GPU critical path of the run, segment by segment, covering its whole length.
  const analysis::TraceCriticalPath& path = report.runs[0].report.devices.at(0).run_path;
  ASSERT_FALSE(path.empty());
  EXPECT_EQ(check.count_by_category.at("host_gpu_critical_path"), static_cast<int64_t>(path.segments.size()));
  EXPECT_EQ(check.ns_by_category.at("host_gpu_critical_path"), path.length_ns);
  EXPECT_EQ(result->runs.at(0).trace_critical_path_segments, static_cast<int64_t>(path.segments.size()));
  // Every kernel was launched by a recorded call: one arrow each.
  EXPECT_EQ(check.flows, static_cast<int64_t>(trace.kernels.size()));
  ASSERT_EQ(result->runs.size(), 1u);
  EXPECT_EQ(result->runs[0].kernels, static_cast<int64_t>(trace.kernels.size()));
  EXPECT_EQ(result->runs[0].idle_ns, report.runs[0].report.devices.at(0).run.idle_ns);
  EXPECT_EQ(result->runs[0].flows, check.flows);
  EXPECT_EQ(result->bytes, static_cast<int64_t>(fs::file_size(out)));
  // Kineto's conventions, which its readers rely on: a GPU's pid is its ordinal, a stream's tid its id;
  // host threads keep their OS ids.
  EXPECT_TRUE(check.pids.count(trace.kernels[0].device.value()));
  EXPECT_EQ(check.gpu_work_off_stream_tid, 0);
  std::set<int64_t> threads;
  for (const ApiCallRecord& a : trace.api_calls) threads.insert(a.thread.value());
  EXPECT_EQ(check.api_tids, threads);
  EXPECT_LE(check.base_time_ns, trace.kernels[0].start_ns);
}

TEST_F(ExportChromeTest, ModelRunShowsCriticalPathAndAssignment) {
  const std::string db = Copy("inception_v3.db");
  const std::string out = Out("inception.json");
  auto result = Export(db, out);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  const ChromeTraceCheck check = Check(out);
  const ReportResult report = ReportOf(db);
  const RunReport& run = report.runs.at(0);
  const Trace trace = TraceOf(db, run.run.id);
  EXPECT_EQ(check.count_by_category.at("kernel"), static_cast<int64_t>(trace.kernels.size()));
  EXPECT_EQ(check.ns_by_category.at("kernel"), KernelNs(trace));
  EXPECT_EQ(check.count_by_category.at("gpu_memset"), static_cast<int64_t>(trace.memsets.size()));
  EXPECT_EQ(check.gpu_work_off_stream_tid, 0);
  const auto& device = run.report.devices.at(0);
  EXPECT_EQ(check.idle_ns_by_device.at(device.run.device.value()), device.run.idle_ns);
  ASSERT_TRUE(run.report.graph.has_value());
  const analysis::GraphReport& graph = *run.report.graph;
  // Every op of the recorded model ran kernels in the weighing iteration: all are placed.
  EXPECT_EQ(check.count_by_category.at("critical_path"), static_cast<int64_t>(graph.critical_path.ops.size()));
  EXPECT_EQ(check.count_by_category.at("stream_assignment"), graph.num_ops);
  // The critical path's ops are the report's, so their weights sum to its length.
  int64_t path_ns = 0;
  for (OpId op : graph.critical_path.ops) path_ns += graph.op_time_ns[static_cast<size_t>(op.value())];
  EXPECT_EQ(path_ns, graph.critical_path.length_ns);
  EXPECT_EQ(result->runs.at(0).critical_path_ops, static_cast<int64_t>(graph.critical_path.ops.size()));
  // Launch arrows (kernels and memsets) and one arrow per planned cross-stream sync.
  EXPECT_EQ(check.flows,
            static_cast<int64_t>(trace.kernels.size() + trace.memsets.size() + graph.assignment.syncs.size()));
}

TEST_F(ExportChromeTest, GzipHoldsTheSameTrace) {
  const std::string db = Copy("concurrent_streams.db");
  ASSERT_TRUE(Export(db, Out("plain.json")).ok());
  auto gz = Export(db, Out("packed.json.gz"));
  ASSERT_TRUE(gz.ok()) << gz.status().ToString();
  EXPECT_TRUE(gz->gzip);
  std::ifstream raw(Out("packed.json.gz"), std::ios::binary);
  EXPECT_EQ(raw.get(), 0x1f);  // gzip magic
  EXPECT_EQ(raw.get(), 0x8b);
  EXPECT_EQ(ReadTraceBytes(Out("packed.json.gz")), ReadTraceBytes(Out("plain.json")));
  EXPECT_LT(fs::file_size(Out("packed.json.gz")), fs::file_size(Out("plain.json")));
}

// Nimble's own Kineto importer reads the export back into a run with the same report: kernels, idle
// time and idle time by cause.
TEST_F(ExportChromeTest, ImportingTheExportGivesTheSameReport) {
  const std::string db = Copy("concurrent_streams.db");
  ASSERT_TRUE(Export(db, Out("round.json.gz")).ok());
  ImportOptions import;
  import.input = Out("round.json.gz");
  import.output = Out("round.db");
  auto imported = Import(import);
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  const analysis::TimelineMetrics before = ReportOf(db).runs.at(0).report.devices.at(0).run;
  const analysis::TimelineMetrics after = ReportOf(Out("round.db")).runs.at(0).report.devices.at(0).run;
  EXPECT_EQ(after.kernel_count, before.kernel_count);
  EXPECT_EQ(after.active_ns, before.active_ns);
  EXPECT_EQ(after.idle_ns, before.idle_ns);
  EXPECT_EQ(after.idle_by_cause.dur_ns, before.idle_by_cause.dur_ns);
}

TEST_F(ExportChromeTest, SeveralRunsShareOneFileWithDistinctProcesses) {
  const std::string db = Copy("concurrent_streams.db");
  const Trace trace = TraceOf(db, RunId(1));
  {
    auto writer = store::RunWriter::Create(db, NamedRun("second copy"));
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    ASSERT_TRUE((*writer)->AppendTrace(trace).ok());
    ASSERT_TRUE((*writer)->Commit().ok());
  }
  const std::string out = Out("both.json");
  auto result = Export(db, out);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(result->runs.size(), 2u);
  const ChromeTraceCheck check = Check(out);  // includes: no two runs' events cross on one thread
  EXPECT_EQ(check.count_by_category.at("kernel"), 2 * static_cast<int64_t>(trace.kernels.size()));
  EXPECT_EQ(check.flows, 2 * static_cast<int64_t>(trace.kernels.size()));  // ids unique across runs
  const nlohmann::json json = nlohmann::json::parse(ReadTraceBytes(out));
  std::set<int64_t> run_pids[2];
  for (const auto& e : json["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name") {
      const std::string name = e["args"]["name"];
      const int run = name.rfind("Run 1 ", 0) == 0 ? 0 : name.rfind("Run 2 ", 0) == 0 ? 1 : -1;
      ASSERT_GE(run, 0) << name;
      run_pids[run].insert(e["pid"].get<int64_t>());
    }
  }
  EXPECT_FALSE(run_pids[0].empty());
  EXPECT_EQ(run_pids[0].size(), run_pids[1].size());
  for (int64_t pid : run_pids[0]) EXPECT_FALSE(run_pids[1].count(pid)) << pid;
  // --run picks one of them.
  auto one = Export(db, Out("second.json"), OnlyRun(2));
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  ASSERT_EQ(one->runs.size(), 1u);
  EXPECT_EQ(one->runs[0].run, 2);
}

TEST_F(ExportChromeTest, OverlappingWorkOnOneStreamGetsATrackOfItsOwn) {
  // Two kernels that overlap without nesting on stream 7, a host copy and a memset; NVTX around them.
  Trace trace;
  const auto kernel = [&](int64_t start, int64_t end, int64_t correlation) {
    KernelRecord k;
    k.start_ns = start, k.end_ns = end, k.device = DeviceId(0), k.stream = StreamId(7);
    k.correlation = CorrelationId(correlation), k.name = trace.strings.Intern("k\"quoted\"<T>");
    trace.kernels.push_back(k);
  };
  kernel(10'000, 20'000, 1);
  kernel(15'000, 25'000, 2);
  MemcpyRecord copy;
  copy.start_ns = 30'000, copy.end_ns = 31'000, copy.device = DeviceId(0), copy.stream = StreamId(7);
  copy.copy_kind = CopyKind::kHtoD, copy.src_kind = MemoryKind::kPinned, copy.dst_kind = MemoryKind::kDevice;
  trace.memcpys.push_back(copy);
  NvtxRange range;
  range.start_ns = 9'000, range.end_ns = 40'000, range.thread = ThreadId(5), range.text = trace.strings.Intern("step");
  trace.ranges.push_back(range);
  const std::string db = (dir_ / "overlap.db").string();
  {
    auto writer = store::RunWriter::Create(db, NamedRun("overlap"));
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    ASSERT_TRUE((*writer)->AppendTrace(trace).ok());
    ASSERT_TRUE((*writer)->Commit().ok());
  }
  const std::string out = Out("overlap.json");
  auto result = Export(db, out);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->runs.at(0).overflow_tracks, 1);
  const ChromeTraceCheck check = Check(out);  // no crossing events on any thread
  EXPECT_EQ(check.gpu_work_off_stream_tid, 1);  // the second kernel, on the overflow track
  EXPECT_EQ(check.count_by_category.at("kernel"), 2);
  EXPECT_EQ(check.ns_by_category.at("kernel"), 20'000);
  EXPECT_EQ(check.count_by_category.at("gpu_memcpy"), 1);
  const std::string text = ReadTraceBytes(out);
  EXPECT_NE(text.find("Memcpy HtoD (Pinned -> Device)"), std::string::npos);
  EXPECT_NE(text.find("stream 7 (overlapping 1)"), std::string::npos);
}

TEST_F(ExportChromeTest, BadInputNamesTheFileAndLeavesNoOutput) {
  const std::string out = Out("never.json");
  const std::string missing = (dir_ / "missing.db").string();
  auto opened = store::RunDatabase::Open(missing, store::Access::kRead);
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.status().message().find(missing), std::string::npos) << opened.status().message();

  const std::string db = Copy("concurrent_streams.db");
  auto no_run = Export(db, out, OnlyRun(99));
  ASSERT_FALSE(no_run.ok());
  EXPECT_EQ(no_run.status().code(), StatusCode::kNotFound);
  EXPECT_NE(no_run.status().message().find(db), std::string::npos) << no_run.status().message();
  ExpectNoOutput(out);

  // An existing output stays as it was when the export fails.
  { std::ofstream(out) << "old"; }
  EXPECT_FALSE(Export(db, out, OnlyRun(99)).ok());
  EXPECT_EQ(ReadTraceBytes(out), "old");
  EXPECT_FALSE(fs::exists(out + ".partial"));

  const std::string unwritable = (dir_ / "no_such_dir" / "trace.json").string();
  auto no_dir = Export(db, unwritable);
  ASSERT_FALSE(no_dir.ok());
  EXPECT_NE(no_dir.status().message().find(unwritable + ": cannot create"), std::string::npos)
      << no_dir.status().message();  // the path the user gave, not the partial file's
  EXPECT_EQ(no_dir.status().message().find(".partial"), std::string::npos) << no_dir.status().message();
  ExpectNoOutput(unwritable);
}

// The store refuses such a record on writing; a trace that reaches the export by another way is still
// checked before anything is written.
TEST(ExportChromeTimeline, ARecordThatEndsBeforeItStartsIsNamed) {
  Trace trace;
  ApiCallRecord call;
  call.start_ns = 2000, call.end_ns = 1000, call.thread = ThreadId(3), call.name = trace.strings.Intern("cudaFree");
  trace.api_calls.push_back(call);
  RunReport report;
  auto timeline = BuildRunTimeline(trace, report, {}, "damaged.db, run 4");
  ASSERT_FALSE(timeline.ok());
  EXPECT_EQ(timeline.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(timeline.status().message().find("damaged.db, run 4"), std::string::npos) << timeline.status().message();
  EXPECT_NE(timeline.status().message().find("API call 0"), std::string::npos) << timeline.status().message();
  trace.api_calls[0].end_ns = 2000;
  EXPECT_TRUE(BuildRunTimeline(trace, report, {}, "damaged.db, run 4").ok());
}

// A host process whose OS pid is a device's ordinal leaves the ordinal to the device (Kineto's pid).
TEST(ExportChromeTimeline, ADeviceKeepsItsOrdinalAsPid) {
  Trace trace;
  KernelRecord k;
  k.start_ns = 100, k.end_ns = 200, k.device = DeviceId(1), k.stream = StreamId(7), k.correlation = CorrelationId(5);
  trace.kernels.push_back(k);
  ApiCallRecord call;
  call.start_ns = 50, call.end_ns = 60, call.process = 1, call.thread = ThreadId(1);
  call.correlation = CorrelationId(5);
  trace.api_calls.push_back(call);
  RunReport report;
  auto timeline = BuildRunTimeline(trace, report, {}, "run");
  ASSERT_TRUE(timeline.ok()) << timeline.status().ToString();
  PidRegistry pids;
  const TimelineLayout layout = LayOutTimeline(*timeline, trace, pids);
  const int32_t kernel_lane = layout.lane_of_source[static_cast<size_t>(SpanSource::kKernel)][0];
  const int32_t call_lane = layout.lane_of_source[static_cast<size_t>(SpanSource::kApiCall)][0];
  ASSERT_GE(kernel_lane, 0);
  ASSERT_GE(call_lane, 0);
  EXPECT_EQ(layout.lanes[static_cast<size_t>(kernel_lane)].pid, 1);
  EXPECT_EQ(layout.lanes[static_cast<size_t>(kernel_lane)].tid, 7);
  EXPECT_NE(layout.lanes[static_cast<size_t>(call_lane)].pid, 1);
  EXPECT_EQ(layout.lanes[static_cast<size_t>(call_lane)].tid, 1);
}

}  // namespace
}  // namespace nimble::workflow
