// Storing nimble-accelerate's results: a mode whose replays were recorded becomes a run with its
// records (kernels on their streams with their graph nodes, one iteration per replay), the graph, the
// captured schedule and the measured metrics; a mode without a recording stays a result-only run; and
// `report` afterwards reads the recording but leaves what nimble-accelerate measured in place.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "accelerate_anchor.h"
#include "accelerate_results.h"
#include "nimble/analysis/stream_assignment.h"
#include "nimble/store/run_database.h"
#include "nimble/workflow/accelerate_json.h"
#include "nimble/store/run_writer.h"
#include "nimble/workflow/profile_model.h"
#include "nimble/workflow/report.h"
#include "test_models.h"

namespace nimble::workflow {
namespace {

OpGraph TwoBranches() {
  OpGraph graph;
  graph.ops = {{OpId(0), "a", "aten::relu", "[1,8]", 10'000}, {OpId(1), "b", "aten::sigmoid", "[1,8]", 10'000}};
  return graph;
}

StreamAssignment Streams(int32_t n) {
  StreamAssignment schedule;
  schedule.num_streams = n;
  schedule.op_stream = {StreamId(0), StreamId(n == 1 ? 0 : 1)};
  return schedule;
}

// Two replays, each one kernel per graph node on two driver streams, inside its iteration range.
ReplayRecording MultiRecording() {
  ReplayRecording recording;
  recording.mode = RunMode::kAotMulti;
  recording.iterations = 2;
  Trace& trace = recording.trace;
  const StringId range = trace.strings.Intern(kProfileIterationRange);
  const StringId name = trace.strings.Intern("k");
  for (int64_t i = 0; i < 2; ++i) {
    const int64_t start = 1'000'000 + i * 100'000;
    trace.ranges.push_back({start, start + 50'000, ThreadId(7), range, StringId()});
    for (int64_t node = 0; node < 2; ++node) {
      KernelRecord k;
      k.start_ns = start + 5'000;
      k.end_ns = k.start_ns + 20'000;
      k.stream = StreamId(100 + node);
      k.graph_node_id = 40 + node;
      k.name = k.short_name = name;
      k.grid = {1, 1, 1};
      k.block = {32, 1, 1};
      trace.kernels.push_back(k);
    }
  }
  recording.stats.push_back({"collector.records", 4, Severity::kInfo, "records"});
  return recording;
}

ModeResult Mode(RunMode kind, int32_t streams, double ms, double predicted_ms, int64_t peak_allocated,
              int64_t peak_reserved, int64_t pool) {
  ModeResult mode;
  mode.mode = kind;
  mode.captured = true;
  mode.schedule = Streams(streams);
  mode.median_ms = ms;
  mode.predicted_ms = predicted_ms;
  mode.capture_ns = 1000;
  mode.peak_allocated_bytes = peak_allocated;
  mode.peak_memory_bytes = peak_reserved;
  mode.graph_pool_bytes = pool;
  return mode;
}

AccelerateResult Result() {
  AccelerateResult r;
  r.model = "m.pt";
  r.inputs = "1x8";
  r.device = "GPU";
  r.iterations = 200;
  r.baseline_ms = 1.0;
  r.single = Mode(RunMode::kAotSingle, 1, 0.5, 0.52, 4 << 20, 8 << 20, 2 << 20);
  r.multi = Mode(RunMode::kAotMulti, 2, 0.3, 0.31, 5 << 20, 10 << 20, 3 << 20);
  return r;
}

double MetricOf(const std::vector<Metric>& metrics, const std::string& name) {
  for (const Metric& m : metrics) {
    if (m.name == name && m.window < 0) return m.value;
  }
  return -1;
}

// A new database in the test directory holding one empty run (the model's own), open for writing.
StatusOr<std::unique_ptr<store::RunDatabase>> DatabaseWithOneRun(const std::string& name) {
  const std::string path = testing::TestDir() + "/" + name;
  std::filesystem::remove(path);
  {
    NIMBLE_ASSIGN_OR_RETURN(auto writer, store::RunWriter::Create(path, RunInfo{}));
    NIMBLE_RETURN_IF_ERROR(writer->Commit());
  }
  return store::RunDatabase::Open(path, store::Access::kReadWrite);
}

// The metrics StoreResults gives each mode's run, stored into a fresh database with one run before them.
StatusOr<std::map<RunMode, std::vector<Metric>>> StoredModeMetrics(AccelerateResult r, const std::string& name) {
  NIMBLE_ASSIGN_OR_RETURN(auto db, DatabaseWithOneRun(name));
  NIMBLE_RETURN_IF_ERROR(StoreResults(db, r, TwoBranches(), {}));
  NIMBLE_ASSIGN_OR_RETURN(auto runs, db->reader().Runs());
  std::map<RunMode, std::vector<Metric>> metrics;
  for (size_t i = 1; i < runs.size(); ++i) {
    NIMBLE_ASSIGN_OR_RETURN(metrics[runs[i].mode], db->reader().LoadMetrics(runs[i].id));
  }
  return metrics;
}

int64_t CountOf(const std::vector<Metric>& metrics, const std::string& name) {
  return std::count_if(metrics.begin(), metrics.end(), [&](const Metric& m) { return m.name == name; });
}

TEST(AccelerateResultsTest, RecordedModeIsStoredWithItsRecordsAndKeepsItsResultsThroughReport) {
  const std::string path = testing::TestDir() + "/accelerate_results.db";
  std::filesystem::remove(path);
  {  // the eager run nimble-prof recorded before
    RunInfo run;
    run.model = "m.pt";
    auto writer = store::RunWriter::Create(path, run);
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    ASSERT_TRUE((*writer)->WriteGraph(TwoBranches(), {}).ok());
    ASSERT_TRUE((*writer)->Commit().ok());
  }
  auto db = store::RunDatabase::Open(path, store::Access::kReadWrite);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  AccelerateResult r = Result();
  r.replay_costs.graph_extra_nodes_ns = 6000;  // the capture's memset nodes, read back by calibrate
  ASSERT_TRUE(StoreResults(*db, r, TwoBranches(), {MultiRecording()}).ok());
  EXPECT_EQ(*db, nullptr) << "closed before the recorded run is written";
  EXPECT_EQ(r.stored_runs, (std::vector<RunMode>{RunMode::kAotSingle, RunMode::kAotMulti}));
  EXPECT_EQ(r.recorded_runs, (std::vector<RunMode>{RunMode::kAotMulti}));

  auto reopened = store::RunDatabase::Open(path, store::Access::kReadWrite);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  const store::RunReader& reader = (*reopened)->reader();
  auto runs = reader.Runs();
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 3u);
  const RunInfo single = (*runs)[1], multi = (*runs)[2];
  EXPECT_EQ(single.mode, RunMode::kAotSingle);
  EXPECT_EQ(multi.mode, RunMode::kAotMulti);
  EXPECT_EQ(multi.iterations, 2);
  EXPECT_EQ(reader.LoadTrace(single.id)->kernels.size(), 0u);
  auto trace = reader.LoadTrace(multi.id);
  ASSERT_TRUE(trace.ok());
  ASSERT_EQ(trace->kernels.size(), 4u);
  std::set<int64_t> nodes, streams;
  for (const KernelRecord& k : trace->kernels) {
    nodes.insert(k.graph_node_id);
    streams.insert(k.stream.value());
  }
  EXPECT_EQ(nodes, (std::set<int64_t>{40, 41}));
  EXPECT_EQ(streams, (std::set<int64_t>{100, 101}));
  auto assignment = reader.LoadAssignment(multi.id);
  ASSERT_TRUE(assignment.ok() && assignment->has_value());
  EXPECT_EQ((*assignment)->num_streams, 2);
  auto metrics = reader.LoadMetrics(multi.id);
  ASSERT_TRUE(metrics.ok());
  EXPECT_DOUBLE_EQ(MetricOf(*metrics, "latency_median_ns"), 0.3e6);
  EXPECT_DOUBLE_EQ(MetricOf(*metrics, "peak_memory_bytes"), 10 << 20);
  EXPECT_DOUBLE_EQ(MetricOf(*metrics, "timed_iterations"), 200);
  EXPECT_DOUBLE_EQ(MetricOf(*metrics, "replay_memset_nodes_ns"), 6000);
  EXPECT_EQ(reader.LoadAttribution(multi.id)->size(), 0u);

  // `report` finds the replays' iterations and stores nothing over the measured results.
  auto report = Report(**reopened, ReportOptions{.run = -1, .store = true, .iteration_range = "", .top_gaps = 10});
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  const RunReport& multi_report = report->runs[2];
  EXPECT_EQ(multi_report.iteration_range, kProfileIterationRange);
  ASSERT_NE(multi_report.report.primary_device(), nullptr);
  EXPECT_EQ(multi_report.report.primary_device()->iterations.size(), 2u);
  EXPECT_DOUBLE_EQ(MetricOf(multi_report.stored_metrics, "latency_median_ns"), 0.3e6);
  auto after = (*reopened)->reader().LoadMetrics(multi.id);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->size(), metrics->size());
  EXPECT_DOUBLE_EQ(MetricOf(*after, "latency_median_ns"), 0.3e6);
  EXPECT_EQ((*(*reopened)->reader().LoadAssignment(multi.id))->num_streams, 2);
}

TEST(AccelerateResultsTest, WithoutRecordingsEveryModeIsAResultRunAndTheDatabaseStaysOpen) {
  auto db = DatabaseWithOneRun("accelerate_results_plain.db");
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  AccelerateResult r = Result();
  ASSERT_TRUE(StoreResults(*db, r, TwoBranches(), {}).ok());
  ASSERT_NE(*db, nullptr);
  EXPECT_TRUE(r.recorded_runs.empty());
  EXPECT_EQ(r.stored_runs.size(), 2u);
  EXPECT_EQ((*db)->reader().Runs()->size(), 3u);
}

// The memory prediction's breakdown reaches --json per mode and per budget trial; a mode without a
// prediction says so with -1 and an empty list.
TEST(AccelerateResultsTest, ThePredictedPoolsBreakdownIsInTheJson) {
  AccelerateResult r = Result();
  r.multi.predicted_graph_pool_bytes = 40 << 20;
  r.multi.predicted_pool_peak_allocated_bytes = 20 << 20;
  r.multi.predicted_pool_streams = {{20 << 20, 15 << 20}, {20 << 20, 7 << 20}};
  r.multi.pool_seed_bytes = {16 << 20, 10 << 20};
  r.multi.unseeded_graph_pool_bytes = 40 << 20;
  MemoryTrial trial;
  trial.streams = 2;
  trial.predicted_pool_streams = r.multi.predicted_pool_streams;
  r.memory_trials.push_back(trial);
  const nlohmann::json j = AccelerateResultToJson(r);
  const nlohmann::json& multi = j.at("multi");
  EXPECT_EQ(multi.at("predicted_graph_pool_bytes"), 40 << 20);
  EXPECT_EQ(multi.at("pool_seed_bytes"), (std::vector<int64_t>{16 << 20, 10 << 20}));
  EXPECT_EQ(multi.at("unseeded_graph_pool_bytes"), 40 << 20);
  EXPECT_EQ(multi.at("predicted_pool_peak_allocated_bytes"), 20 << 20);
  ASSERT_EQ(multi.at("predicted_pool_streams").size(), 2u);
  EXPECT_EQ(multi.at("predicted_pool_streams")[1].at("segment_bytes"), 20 << 20);
  EXPECT_EQ(multi.at("predicted_pool_streams")[1].at("peak_allocated_bytes"), 7 << 20);
  EXPECT_EQ(j.at("memory_trials")[0].at("predicted_pool_streams")[0].at("peak_allocated_bytes"), 15 << 20);
  EXPECT_EQ(j.at("single").at("predicted_pool_peak_allocated_bytes"), -1);
  EXPECT_EQ(j.at("single").at("unseeded_graph_pool_bytes"), -1);
  EXPECT_TRUE(j.at("single").at("pool_seed_bytes").empty());
  EXPECT_TRUE(j.at("single").at("predicted_pool_streams").empty());
}

// Both output errors reach --json and the stored metrics: against the frozen graph always, against the
// model as the file holds it only where it was compared (null in the JSON, no metric otherwise).
TEST(AccelerateResultsTest, TheErrorAgainstTheUnmodifiedModelIsReportedOnlyWhereMeasured) {
  AccelerateResult r = Result();
  r.output_reference = "the model as the file holds it";
  r.single.max_rel_error = 1e-7;
  r.single.max_rel_error_unmodified = 2.5e-5;
  r.multi.max_rel_error = 2e-7;
  const nlohmann::json j = AccelerateResultToJson(r);
  EXPECT_EQ(j.at("output_reference"), "the model as the file holds it");
  EXPECT_DOUBLE_EQ(j.at("single").at("max_rel_error").get<double>(), 1e-7);
  EXPECT_DOUBLE_EQ(j.at("single").at("max_rel_error_unmodified").get<double>(), 2.5e-5);
  EXPECT_TRUE(j.at("multi").at("max_rel_error_unmodified").is_null());
  AccelerateResult not_finite = r;
  not_finite.multi.max_rel_error_unmodified = std::numeric_limits<double>::infinity();
  EXPECT_EQ(AccelerateResultToJson(not_finite).at("multi").at("max_rel_error_unmodified"), "inf");
  // Not half precision: no float32 computation, null figures.
  EXPECT_TRUE(j.at("unmodified_error_float32").is_null());
  EXPECT_TRUE(j.at("single").at("max_rel_error_float32").is_null());

  auto stored = StoredModeMetrics(r, "accelerate_results_errors.db");
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  ASSERT_EQ(stored->size(), 2u);
  for (const auto& [mode, metrics] : *stored) {
    const bool single = mode == RunMode::kAotSingle;
    EXPECT_DOUBLE_EQ(MetricOf(metrics, "max_rel_error"), single ? 1e-7 : 2e-7);
    EXPECT_EQ(CountOf(metrics, "max_rel_error_unmodified"), single ? 1 : 0);
    if (single) {
      EXPECT_DOUBLE_EQ(MetricOf(metrics, "max_rel_error_unmodified"), 2.5e-5);
    }
    EXPECT_EQ(CountOf(metrics, "max_rel_error_float32"), 0);
  }
}

// The sharing model the prediction used reaches --json's replay costs and every mode's stored metrics,
// its crowding and knee included, and so does the precision that chose it.
TEST(AccelerateResultsTest, TheSharingModelWithItsCrowdingIsInTheJsonAndTheStoredMetrics) {
  AccelerateResult r = Result();
  r.replay_costs.sharing = analysis::SharingModel{0.1, 0.9, "test", analysis::Dispatch::kInOrder};
  r.replay_costs.sharing.crowding = 0.25;
  r.replay_costs.sharing.knee = 0.7;
  r.precision = analysis::Precision::kHalf;
  EXPECT_EQ(AccelerateResultToJson(r).at("precision"), "half");
  const nlohmann::json sharing = AccelerateResultToJson(r).at("replay_costs").at("sharing");
  EXPECT_DOUBLE_EQ(sharing.at("floor").get<double>(), 0.1);
  EXPECT_EQ(sharing.at("dispatch"), "in-order");
  EXPECT_DOUBLE_EQ(sharing.at("crowding").get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(sharing.at("knee").get<double>(), 0.7);
  auto stored = StoredModeMetrics(r, "accelerate_results_sharing.db");
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  for (const auto& [mode, metrics] : *stored) {
    EXPECT_DOUBLE_EQ(MetricOf(metrics, "sharing_crowding"), 0.25);
    EXPECT_DOUBLE_EQ(MetricOf(metrics, "sharing_knee"), 0.7);
    EXPECT_DOUBLE_EQ(MetricOf(metrics, "sharing_in_order"), 1.0);
    EXPECT_DOUBLE_EQ(MetricOf(metrics, "sharing_precision"), 2.0);  // what nimble-prof calibrate reads back
  }
}

// The multi-stream prediction anchored on the single-stream replay: the factor and the text in --json, the
// prediction from the kernels as recorded beside the anchored one, and both stored with the multi-stream
// run; without anchoring, nulls and no such metrics.
TEST(AccelerateResultsTest, TheAnchoredPredictionKeepsTheOneFromTheKernelsAsRecorded) {
  AccelerateResult r = Result();
  const nlohmann::json plain = AccelerateResultToJson(r);
  EXPECT_TRUE(plain.at("multi").at("predicted_unanchored_ms").is_null());
  EXPECT_DOUBLE_EQ(plain.at("duration_scale").get<double>(), 1.0);
  r.duration_scale = 0.94;
  r.anchor_text = "multi-stream predicted from the kernel durations x0.940";
  r.multi.predicted_unanchored_ms = 0.33;
  const nlohmann::json j = AccelerateResultToJson(r);
  EXPECT_DOUBLE_EQ(j.at("multi").at("predicted_ms").get<double>(), 0.31);
  EXPECT_DOUBLE_EQ(j.at("multi").at("predicted_unanchored_ms").get<double>(), 0.33);
  EXPECT_TRUE(j.at("single").at("predicted_unanchored_ms").is_null());
  EXPECT_DOUBLE_EQ(j.at("duration_scale").get<double>(), 0.94);
  EXPECT_EQ(j.at("anchor"), r.anchor_text);
  auto stored = StoredModeMetrics(r, "accelerate_results_anchor.db");
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  for (const auto& [mode, metrics] : *stored) {
    const bool multi = mode == RunMode::kAotMulti;
    EXPECT_EQ(CountOf(metrics, "predicted_unanchored_latency_ns"), multi ? 1 : 0);
    EXPECT_EQ(CountOf(metrics, "duration_scale"), multi ? 1 : 0);
    if (multi) {
      EXPECT_DOUBLE_EQ(MetricOf(metrics, "predicted_unanchored_latency_ns"), 0.33e6);
      EXPECT_DOUBLE_EQ(MetricOf(metrics, "predicted_latency_ns"), 0.31e6);
      EXPECT_DOUBLE_EQ(MetricOf(metrics, "duration_scale"), 0.94);
    }
  }
}

// Four branches between a fork and a join, each kernel 50 us on a tenth of the GPU, replay costs of 5 us and
// 1 us a kernel: its single-stream replay is predicted at 305 us.
struct Branches {
  analysis::Dag dag;
  analysis::Workload workload;
  analysis::PredictionOptions options;
};

Branches FourBranches() {
  std::vector<OpEdge> edges;
  for (int32_t b = 1; b <= 4; ++b) {
    edges.push_back({OpId(0), OpId(b)});
    edges.push_back({OpId(b), OpId(5)});
  }
  Branches out{analysis::Dag::FromEdges(6, edges).value(), {}, {}};
  out.workload.op_kernels.assign(6, {{50000, 0.1}});
  out.options.graph_launch_ns = 5000;
  out.options.graph_node_latency_ns = 1000;
  out.options.sync_latency_ns = 0;
  return out;
}

// The single-stream replay measured 20 % under what the kernels predict once its costs are taken off: the
// multi-stream schedule and a memory trial are predicted from kernels x0.8, the schedule also from them as
// recorded; the text names the factor.
TEST(AccelerateAnchorTest, MultiStreamPredictionsComeFromTheKernelsAnchoredOnTheSingleStreamReplay) {
  const Branches b = FourBranches();
  AccelerateResult r = Result();
  r.single.median_ms = (5000 + 6 * 1000 + 6 * 40000) / 1e6;
  r.multi.schedule = analysis::AssignStreams(b.dag);
  MemoryTrial trial;
  trial.schedule = analysis::SingleStream(b.dag);  // a trial folded onto one stream
  r.memory_trials = {trial};
  ASSERT_TRUE(PredictMultiStreamAnchored(b.dag, b.workload, b.options, &r).ok());
  EXPECT_NEAR(r.duration_scale, 0.8, 1e-12);
  EXPECT_NE(r.anchor_text.find("x0.800"), std::string::npos) << r.anchor_text;
  const double as_recorded = analysis::PredictMultiStream(b.dag, b.workload, r.multi.schedule, b.options).value() / 1e6;
  EXPECT_DOUBLE_EQ(r.multi.predicted_unanchored_ms, as_recorded);
  // Kernels of 40 us: the fork, the four branches side by side, the join, and the replay costs.
  EXPECT_NEAR(r.multi.predicted_ms, as_recorded - 3 * 0.010, 1e-6);
  EXPECT_NEAR(r.memory_trials[0].predicted_ms, r.single.median_ms, 1e-6);  // one stream: the measurement
}

// The same replay with six memset nodes' kernels in it (0.7 us each): they are taken off before the
// kernels are scaled, so the factor stays 0.8, and they are added back to the multi-stream replay once.
TEST(AccelerateAnchorTest, MemsetNodesAreNotScaledWithTheKernels) {
  Branches b = FourBranches();
  b.options.graph_extra_nodes_ns = 6 * 700;
  AccelerateResult r = Result();
  r.single.median_ms = (5000 + 6 * 700 + 6 * 1000 + 6 * 40000) / 1e6;
  r.multi.schedule = analysis::AssignStreams(b.dag);
  ASSERT_TRUE(PredictMultiStreamAnchored(b.dag, b.workload, b.options, &r).ok());
  EXPECT_NEAR(r.duration_scale, 0.8, 1e-12);
  analysis::PredictionOptions without = b.options;
  without.graph_extra_nodes_ns = 0;
  const double as_recorded = analysis::PredictMultiStream(b.dag, b.workload, r.multi.schedule, without).value() / 1e6;
  EXPECT_NEAR(r.multi.predicted_ms, as_recorded - 3 * 0.010 + 0.0042, 1e-6);
}

// The captures' memset nodes are costed from the single-stream capture's counts, not where the ops were
// timed one by one (their times include their memsets), and an untimed memset cost is said.
TEST(AccelerateAnchorTest, ReplayCostsCountTheMemsetNodesOfRecordedOpsOnly) {
  analysis::ReplayCosts costs;
  costs.replays = 40;
  costs.fill_node_ns = 900;
  costs.memset_node_ns = 1800;
  AccelerateResult r = Result();
  r.single.memset_nodes_replaced = 6;
  r.single.memset_nodes_kept = 1;
  r.multi.memset_nodes_replaced = 99;  // not used while the single-stream capture is there
  analysis::PredictionOptions options;
  UseReplayCosts(costs, /*isolated_op_times=*/false, &options, &r);
  EXPECT_EQ(options.graph_extra_nodes_ns, 6 * 900 + 1800);
  EXPECT_EQ(r.replay_cost_source, "recorded on this device (40 calibration replays)");
  UseReplayCosts(costs, /*isolated_op_times=*/true, &options, &r);
  EXPECT_EQ(options.graph_extra_nodes_ns, 0);
  costs.memset_costs_error = "replay calibration: cudaMalloc: out of memory";
  r.single.captured = false;
  UseReplayCosts(costs, false, &options, &r);
  EXPECT_EQ(options.graph_extra_nodes_ns, 99 * 900);
  EXPECT_NE(r.replay_cost_source.find("; memset nodes not timed: replay calibration: cudaMalloc"), std::string::npos)
      << r.replay_cost_source;
}

TEST(AccelerateAnchorTest, WithoutAUsableSingleStreamReplayTheKernelsAreUsedAsRecordedAndItSaysWhy) {
  const Branches b = FourBranches();
  AccelerateResult r = Result();
  r.multi.schedule = analysis::AssignStreams(b.dag);
  r.single.median_ms = 10.0;  // 30x the kernels: a different workload, not tracing
  ASSERT_TRUE(PredictMultiStreamAnchored(b.dag, b.workload, b.options, &r).ok());
  EXPECT_EQ(r.duration_scale, 1.0);
  EXPECT_LT(r.multi.predicted_unanchored_ms, 0);
  EXPECT_NE(r.anchor_text.find("not anchored: "), std::string::npos) << r.anchor_text;
  EXPECT_NE(r.anchor_text.find("outside 0.5-2x"), std::string::npos) << r.anchor_text;
  EXPECT_DOUBLE_EQ(r.multi.predicted_ms,
                   analysis::PredictMultiStream(b.dag, b.workload, r.multi.schedule, b.options).value() / 1e6);
  // No multi-stream schedule at all: nothing to anchor, nothing said.
  AccelerateResult width_one = Result();
  width_one.multi.captured = false;
  ASSERT_TRUE(PredictMultiStreamAnchored(b.dag, b.workload, b.options, &width_one).ok());
  EXPECT_TRUE(width_one.anchor_text.empty());
  EXPECT_EQ(width_one.duration_scale, 1.0);
}

// A half-precision model's distances from its float32 computation: the file's model at its dtype, once,
// and each mode's replays, in --json and, per mode where measured, in the stored metrics.
TEST(AccelerateResultsTest, TheDistancesFromTheFloat32ComputationAreReportedWhereMeasured) {
  AccelerateResult r = Result();
  r.output_reference = "the model as the file holds it";
  r.single.max_rel_error_unmodified = 0.0977;
  r.single.max_rel_error_float32 = 0.07;
  r.multi.max_rel_error_unmodified = 0.0977;
  r.unmodified_error_float32 = 0.064;
  const nlohmann::json j = AccelerateResultToJson(r);
  EXPECT_DOUBLE_EQ(j.at("unmodified_error_float32").get<double>(), 0.064);
  EXPECT_DOUBLE_EQ(j.at("single").at("max_rel_error_float32").get<double>(), 0.07);
  EXPECT_TRUE(j.at("multi").at("max_rel_error_float32").is_null());

  auto stored = StoredModeMetrics(r, "accelerate_results_float32.db");
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  ASSERT_EQ(stored->size(), 2u);
  const std::vector<Metric>& single = stored->at(RunMode::kAotSingle);
  EXPECT_DOUBLE_EQ(MetricOf(single, "max_rel_error_float32"), 0.07);
  EXPECT_DOUBLE_EQ(MetricOf(single, "unmodified_error_float32"), 0.064);
  EXPECT_EQ(CountOf(stored->at(RunMode::kAotMulti), "max_rel_error_float32"), 0);
}

}  // namespace
}  // namespace nimble::workflow
