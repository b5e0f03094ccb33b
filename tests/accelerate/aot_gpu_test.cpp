// Ahead-of-time capture on the GPU (label gpu; every test skips without a device): multi-stream,
// single-stream and the unmodified model agree; three small parallel branches overlap (multi-stream
// replay faster than single-stream); nimble-accelerate writes a model.nimble that nimble-run replays
// in a new process; a wrong input shape at run time is a clear error; a capture that fails names the
// op and leaves the process able to capture again; timing replays the caller's inputs; "same"
// padding computed on the GPU from x.size() is folded at load and captures; the replay costs the
// prediction uses are recorded on the device; with --db, a new database receives the model's own
// recording and both modes' recorded replays; several input shapes (buckets) in one model.nimble; the
// multi-stream graph's shared-memory carveout measured both ways, the faster kept in model.nimble.
// The memory tests (branch captures, allocation traces) are in aot_memory_gpu_test.cpp.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "nimble/accelerate/aot_graph.h"
#include "nimble/accelerate/artifact.h"
#include "nimble/accelerate/capturability.h"
#include "nimble/accelerate/cuda_devices.h"
#include "nimble/accelerate/model_graph.h"
#include "nimble/accelerate/model_timing.h"
#include "nimble/accelerate/runner.h"
#include "nimble/accelerate/stream_rewrite.h"
#include "nimble/analysis/dag.h"
#include "nimble/analysis/stream_assignment.h"
#include "nimble/core/median.h"
#include "nimble/store/run_reader.h"
#include "nimble/workflow/replay_costs.h"
#include "aot_gpu_testing.h"
#include "test_models.h"

namespace nimble::accelerate {
namespace {

TEST(AotGpuTest, MultiSingleAndEagerAgree) {
  SKIP_WITHOUT_GPU();
  DisableTf32();
  const FrontEndOptions options = OnGpu();
  StatusOr<ModelGraph> model = LoadModelGraph(testing::SaveTestModel(testing::TestModel::kForkJoin), {{1, 3, 8, 8}}, options);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  StatusOr<analysis::Dag> dag = analysis::Dag::FromOpGraph(model->graph);
  ASSERT_TRUE(dag.ok());
  Captured multi = Capture(*model, analysis::AssignStreams(*dag));
  Captured single = Capture(*model, analysis::SingleStream(*dag));
  ASSERT_TRUE(multi.graph && single.graph);
  EXPECT_GE(multi.graph->stats().num_streams, 3);
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    const std::vector<HostTensor> inputs = {HostTensor::Random({1, 3, 8, 8}, seed)};
    StatusOr<std::vector<HostTensor>> eager = RunOnce(model->model, inputs);
    ASSERT_TRUE(eager.ok());
    for (AotGraph* graph : {multi.graph.get(), single.graph.get()}) {
      ASSERT_TRUE(graph->SetInputs(inputs).ok());
      ASSERT_TRUE(graph->Replay().ok());
      StatusOr<std::vector<HostTensor>> outputs = graph->Outputs();
      ASSERT_TRUE(outputs.ok());
      EXPECT_LE(*MaxRelativeError(*outputs, *eager), 1e-5);
    }
  }
}

TEST(AotGpuTest, ParallelBranchesOverlap) {
  SKIP_WITHOUT_GPU();
  const FrontEndOptions options = OnGpu();
  const std::string path = testing::SaveModelFromSource(kThreeBranches, {{8, 8, 3, 3}, {8, 8, 3, 3}, {8, 8, 3, 3}});
  StatusOr<ModelGraph> model = LoadModelGraph(path, {{1, 8, 16, 16}}, options);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  StatusOr<analysis::Dag> dag = analysis::Dag::FromOpGraph(model->graph);
  ASSERT_TRUE(dag.ok());
  Captured multi = Capture(*model, analysis::AssignStreams(*dag));
  Captured single = Capture(*model, analysis::SingleStream(*dag));
  ASSERT_TRUE(multi.graph && single.graph);
  StatusOr<std::vector<int64_t>> multi_ns = multi.graph->TimeReplays(200);
  StatusOr<std::vector<int64_t>> single_ns = single.graph->TimeReplays(200);
  ASSERT_TRUE(multi_ns.ok() && single_ns.ok());
  EXPECT_LT(Median(*multi_ns), Median(*single_ns)) << "multi " << Median(*multi_ns) << " ns, single "
                                                   << Median(*single_ns) << " ns";
}

// torch.nonzero waits for the device, which a capture cannot do. It runs on a side stream here, so
// the capture fails with that stream current and forked from the capture stream. The error names
// the op, and the failed capture is cleaned up: the process goes on using the GPU, and the next
// capture works.
TEST(AotGpuTest, AFailedCaptureNamesTheOpAndLeavesTheProcessUsable) {
  SKIP_WITHOUT_GPU();
  const FrontEndOptions options = OnGpu();
  const std::string source = R"(
def forward(self, x):
    a = torch.relu(x)
    b = torch.sigmoid(x)
    return a, torch.nonzero(b)
)";
  StatusOr<ModelGraph> bad = LoadModelGraph(testing::SaveModelFromSource(source, {}), {{2, 3}}, options);
  ASSERT_TRUE(bad.ok()) << bad.status().ToString();
  ASSERT_EQ(bad->graph.ops.size(), 3u);
  StreamAssignment assignment;  // relu on stream 0, sigmoid and nonzero on stream 1
  assignment.num_streams = 2;
  assignment.op_stream = {StreamId(0), StreamId(1), StreamId(1)};
  StatusOr<ScheduledModel> scheduled = RewriteForStreams(bad->model, bad->graph, assignment);
  ASSERT_TRUE(scheduled.ok()) << scheduled.status().ToString();
  StatusOr<std::unique_ptr<AotGraph>> failed = AotGraph::Capture(scheduled->model);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(failed.status().message().find("aten::nonzero failed"), std::string::npos) << failed.status().message();
  EXPECT_NE(failed.status().message().find("capturing"), std::string::npos) << "the CUDA reason, not c10's hints";
  std::cout << "  " << failed.status().message() << "\n";  // for the GPU log: what a user reads

  // RunOnce works on the current stream: had the capture left its (now destroyed) side stream or a
  // capturing stream current, this would fail.
  StatusOr<ModelGraph> good = LoadModelGraph(testing::SaveTestModel(testing::TestModel::kForkJoin), {{1, 3, 8, 8}}, options);
  ASSERT_TRUE(good.ok());
  const std::vector<HostTensor> inputs = {HostTensor::Random({1, 3, 8, 8}, 5)};
  StatusOr<std::vector<HostTensor>> eager = RunOnce(good->model, inputs);
  ASSERT_TRUE(eager.ok()) << eager.status().ToString();
  StatusOr<analysis::Dag> dag = analysis::Dag::FromOpGraph(good->graph);
  ASSERT_TRUE(dag.ok());
  Captured captured = Capture(*good, analysis::AssignStreams(*dag));
  ASSERT_TRUE(captured.graph);
  ASSERT_TRUE(captured.graph->SetInputs(inputs).ok());
  ASSERT_TRUE(captured.graph->Replay().ok());
  StatusOr<std::vector<HostTensor>> outputs = captured.graph->Outputs();
  ASSERT_TRUE(outputs.ok());
  EXPECT_LE(*MaxRelativeError(*outputs, *eager), 1e-3);  // TF32 may be on here: both sides alike
}

// "Same" padding as models traced on the GPU compute it (timm's pad_same in NASNet): arithmetic on a
// CUDA tensor made from x.size(), read back with int(). Unspecialized, that read is a device sync; with
// the shape folded to a constant the arithmetic is done at load time, and the model captures and
// matches the unmodified one.
TEST(AotGpuTest, ShapeArithmeticOnTheGpuIsFoldedAndCaptures) {
  SKIP_WITHOUT_GPU();
  DisableTf32();
  const FrontEndOptions options = OnGpu();
  const std::string source = R"(
def forward(self, x):
    y = torch.relu(x)
    h = torch.scalar_tensor(y.size(2), device=torch.device("cuda"))
    p = torch.clamp(torch.ceil(h / 3.0) - 1, 0, 10)
    return torch.sigmoid(torch.constant_pad_nd(y, [int(p), int(p // 2)], 0.0))
)";
  StatusOr<ModelGraph> model = LoadModelGraph(testing::SaveModelFromSource(source, {}), {{1, 2, 7, 5}}, options);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_EQ(model->folded_shape_queries, 1);
  EXPECT_EQ(model->model.GraphText().find("aten::Int"), std::string::npos) << model->model.GraphText();
  ASSERT_TRUE(CheckCapturable(model->model).ok()) << CheckCapturable(model->model).ToString();
  StatusOr<analysis::Dag> dag = analysis::Dag::FromOpGraph(model->graph);
  ASSERT_TRUE(dag.ok());
  Captured captured = Capture(*model, analysis::SingleStream(*dag));
  ASSERT_TRUE(captured.graph);
  const std::vector<HostTensor> inputs = {HostTensor::Random({1, 2, 7, 5}, 9)};
  StatusOr<std::vector<HostTensor>> eager = RunOnce(model->model, inputs);
  ASSERT_TRUE(eager.ok()) << eager.status().ToString();
  ASSERT_TRUE(captured.graph->SetInputs(inputs).ok());
  ASSERT_TRUE(captured.graph->Replay().ok());
  StatusOr<std::vector<HostTensor>> outputs = captured.graph->Outputs();
  ASSERT_TRUE(outputs.ok());
  ASSERT_EQ(outputs->size(), 1u);
  EXPECT_EQ((*outputs)[0].shape, (std::vector<int64_t>{1, 2, 7, 8}));  // padded by 2 and 1
  EXPECT_LE(*MaxRelativeError(*outputs, *eager), 1e-6);
}

// The prediction's replay costs, recorded on this device while the calibration graphs replay: every
// replay is seen, with same-stream gaps from the chain and cross-stream ones from the diamonds.
TEST(AotGpuTest, ReplayCostsAreRecordedOnTheDevice) {
  SKIP_WITHOUT_GPU();
  StatusOr<analysis::ReplayCosts> costs = workflow::MeasureReplayCosts("cuda");
  ASSERT_TRUE(costs.ok()) << costs.status().ToString();
  std::cout << "  launch " << costs->launch_ns << " ns, kernel gap " << costs->node_gap_ns << " ns ("
            << costs->node_gaps << "), cross-stream gap " << costs->cross_stream_gap_ns << " ns ("
            << costs->cross_stream_gaps << ")\n";
  EXPECT_EQ(costs->replays, 40);                 // 20 of each graph
  EXPECT_GE(costs->node_gaps, 20 * 47);          // the chain's 48 kernels, one after another
  EXPECT_GE(costs->cross_stream_gaps, 20 * 16);  // each diamond's fork to the second stream
  EXPECT_GT(costs->launch_ns, 0);
  EXPECT_LT(costs->node_gap_ns, 20'000);
  EXPECT_LT(costs->cross_stream_gap_ns, 50'000);
  // Timed without the collector: a 4-byte memset node, and the fill kernel that replaces it, each adds
  // something to a replay, and the kernel less (what the rewrite is for).
  std::cout << "  memset node " << costs->memset_node_ns << " ns, fill kernel node " << costs->fill_node_ns << " ns\n";
  EXPECT_GT(costs->fill_node_ns, 0);
  EXPECT_LT(costs->fill_node_ns, costs->memset_node_ns);
  EXPECT_LT(costs->memset_node_ns, 20'000);
}

// Timing replays the inputs of the last SetInputs: the outputs after TimeReplays are still theirs.
TEST(AotGpuTest, TimingKeepsTheCallersInputs) {
  SKIP_WITHOUT_GPU();
  DisableTf32();
  const FrontEndOptions options = OnGpu();
  StatusOr<ModelGraph> model = LoadModelGraph(testing::SaveTestModel(testing::TestModel::kForkJoin), {{1, 3, 8, 8}}, options);
  ASSERT_TRUE(model.ok());
  StatusOr<analysis::Dag> dag = analysis::Dag::FromOpGraph(model->graph);
  ASSERT_TRUE(dag.ok());
  Captured captured = Capture(*model, analysis::AssignStreams(*dag));
  ASSERT_TRUE(captured.graph);
  const std::vector<HostTensor> inputs = {HostTensor::Random({1, 3, 8, 8}, 77)};
  ASSERT_TRUE(captured.graph->SetInputs(inputs).ok());
  ASSERT_TRUE(captured.graph->TimeReplays(3).ok());
  StatusOr<std::vector<HostTensor>> outputs = captured.graph->Outputs();
  StatusOr<std::vector<HostTensor>> eager = RunOnce(model->model, inputs);
  ASSERT_TRUE(outputs.ok() && eager.ok());
  EXPECT_LE(*MaxRelativeError(*outputs, *eager), 1e-5);
  EXPECT_GT(captured.graph->stats().graph_pool_bytes, 0);
}

TEST(AotGpuTest, ArtifactRunsInANewProcessAndRejectsWrongShapes) {
  SKIP_WITHOUT_GPU();
  const std::string model = testing::SaveTestModel(testing::TestModel::kForkJoin);
  const std::string artifact = testing::TestDir() + "/fork_join.nimble";
  const std::string bin = std::string(NIMBLE_BINARY_DIR) + "/cli/";
  ASSERT_EQ(std::system((bin + "nimble-accelerate " + model + " --input 1x3x8x8 --iters 20 -o " + artifact).c_str()), 0);
  EXPECT_EQ(std::system((bin + "nimble-run " + artifact + " --iters 20").c_str()), 0);
  EXPECT_NE(std::system((bin + "nimble-run " + artifact + " --input 1x3x9x9 --iters 5").c_str()), 0);
  StatusOr<Runner> runner = Runner::Load(artifact);
  ASSERT_TRUE(runner.ok()) << runner.status().ToString();
  StatusOr<std::vector<HostTensor>> wrong = runner->Run({HostTensor::Random({1, 3, 9, 9}, 1)});
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("has shape 1x3x9x9, the graph was captured for 1x3x8x8"), std::string::npos)
      << wrong.status().message();
  EXPECT_TRUE(runner->Run({HostTensor::Random({1, 3, 8, 8}, 1)}).ok());
}

// Unless --smem-carveout is given, the multi-stream capture is instantiated both ways (each kernel's own
// carveout, and kMeasuredCarveout on kernels without shared memory), timed side by side, and the faster
// kept: the report names both, and model.nimble asks nimble-run for the kept one. One capture, so a
// branch capture and a memory budget measure it too. With the option, one executable, as asked.
TEST(AotGpuTest, TheMultiStreamCarveoutIsMeasuredBothWaysAndTheFasterKept) {
  SKIP_WITHOUT_GPU();
  const std::string model = testing::SaveTestModel(testing::TestModel::kForkJoin);
  const std::string bin = std::string(NIMBLE_BINARY_DIR) + "/cli/";
  const std::string dir = testing::TestDir();
  auto accelerate = [&](const std::string& flags, const std::string& name) {
    const std::string json = dir + "/" + name + ".json";
    EXPECT_EQ(std::system((bin + "nimble-accelerate " + model + " --input 1x3x8x8 --iters 20 --mode multi --json " +
                           flags + " -o " + dir + "/" + name + ".nimble > " + json).c_str()),
              0);
    std::ifstream in(json);
    return nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  };
  const nlohmann::json measured = accelerate("", "carveout");
  ASSERT_FALSE(measured.is_discarded());
  const nlohmann::json& multi = measured.at("multi");
  const int kept = multi.at("smem_carveout").get<int>(), other = multi.at("carveout_alternate").get<int>();
  EXPECT_TRUE((kept == -1 && other == 100) || (kept == 100 && other == -1)) << multi.dump();
  const double kept_ms = multi.at("measured_ms").get<double>(), other_ms = multi.at("carveout_alternate_ms").get<double>();
  EXPECT_GT(other_ms, 0) << multi.dump();
  // 100 % is kept only when more than 1 % faster (Session::KeepFasterCarveout).
  if (kept == 100) {
    EXPECT_LT(kept_ms, 0.99 * other_ms) << multi.dump();
  } else {
    EXPECT_GE(other_ms, 0.99 * kept_ms) << multi.dump();
  }
  EXPECT_GT(multi.at("carveout_nodes").get<int>(), 0) << multi.dump();
  EXPECT_EQ(measured.at("single").at("smem_carveout").get<int>(), -1) << "one stream: each kernel's own";
  StatusOr<LoadedArtifact> artifact = LoadArtifact(dir + "/carveout.nimble", "cuda");
  ASSERT_TRUE(artifact.ok()) << artifact.status().ToString();
  EXPECT_EQ(artifact->meta.mode, RunMode::kAotMulti);
  EXPECT_EQ(artifact->meta.smem_carveout, kept);
  EXPECT_EQ(std::system((bin + "nimble-run " + dir + "/carveout.nimble --iters 5").c_str()), 0);
  // A budget of 100x single-stream's peak holds the multi-stream mode: the budget's path, a multi mode.
  for (const auto& [flags, name] : {std::pair{"--cross-stream-reuse", "carveout_branches"},
                                    std::pair{"--memory-ratio 100", "carveout_budget"}}) {
    const nlohmann::json other = accelerate(flags, name);
    ASSERT_FALSE(other.is_discarded()) << flags;
    ASSERT_TRUE(other.at("multi").is_object()) << flags << ": no multi-stream mode";
    const nlohmann::json& m = other.at("multi");
    EXPECT_GT(m.at("carveout_alternate_ms").get<double>(), 0) << flags << ": " << m.dump();
    EXPECT_EQ(m.at("branch_capture").get<bool>(), std::string(flags) == "--cross-stream-reuse") << m.dump();
    if (std::string(flags) != "--cross-stream-reuse") {
      EXPECT_GT(other.at("memory_budget_bytes").get<int64_t>(), 0);
    }
  }

  const nlohmann::json asked = accelerate("--smem-carveout 100", "carveout_100");
  ASSERT_FALSE(asked.is_discarded());
  EXPECT_EQ(asked.at("multi").at("smem_carveout").get<int>(), 100);
  EXPECT_EQ(asked.at("single").at("smem_carveout").get<int>(), 100);
  EXPECT_EQ(asked.at("multi").at("carveout_alternate_ms").get<double>(), -1) << "no alternate when asked";
  EXPECT_GT(asked.at("multi").at("carveout_nodes").get<int>(), 0);
  StatusOr<LoadedArtifact> forced = LoadArtifact(dir + "/carveout_100.nimble", "cuda");
  ASSERT_TRUE(forced.ok()) << forced.status().ToString();
  EXPECT_EQ(forced->meta.smem_carveout, 100);
  EXPECT_NE(std::system((bin + "nimble-accelerate " + model + " --input 1x3x8x8 --smem-carveout 101 -o " + dir +
                         "/bad.nimble 2> /dev/null").c_str()),
            0);
  EXPECT_FALSE(std::filesystem::exists(dir + "/bad.nimble"));
}

TEST(AotGpuTest, CapturedGraphsAreWrittenAsDotWhenAsked) {
  SKIP_WITHOUT_GPU();
  const std::string model = testing::SaveTestModel(testing::TestModel::kForkJoin);
  const std::string dir = testing::TestDir() + "/dots";
  std::filesystem::remove_all(dir);
  const std::string bin = std::string(NIMBLE_BINARY_DIR) + "/cli/";
  ASSERT_EQ(std::system((bin + "nimble-accelerate " + model + " --input 1x3x8x8 --iters 5 --no-seed-pool --dump-graphs " +
                         dir + " -o " + testing::TestDir() + "/dots.nimble").c_str()),
            0);
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  ASSERT_EQ(names.size(), 2u) << ::testing::PrintToString(names);
  EXPECT_EQ(names[1], "aot-single-1-streams.dot");
  EXPECT_EQ(names[0].rfind("aot-multi-", 0), 0u) << names[0];
  for (const std::string& name : names) {
    std::ifstream in(dir + "/" + name);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("digraph"), std::string::npos) << name;
    EXPECT_NE(text.find("->"), std::string::npos) << name << ": no edge";
    // The edges' types, which the dot itself does not show, counted at its end: as many as the dot's edges.
    const size_t at = text.find("// edges by type: ");
    ASSERT_NE(at, std::string::npos) << name;
    size_t dot_edges = 0;
    for (size_t p = text.find(" -> "); p != std::string::npos && p < at; p = text.find(" -> ", p + 1)) ++dot_edges;
    long default_edges = -1, programmatic = -1;
    ASSERT_EQ(std::sscanf(text.c_str() + at, "// edges by type: %ld default, %ld programmatic", &default_edges,
                          &programmatic),
              2)
        << text.substr(at);
    EXPECT_EQ(static_cast<size_t>(default_edges + programmatic), dot_edges) << name;
  }
}

TEST(AotGpuTest, ReplaysAreRecordedIntoANewDatabaseBesideTheModelsOwnRun) {
  SKIP_WITHOUT_GPU();
  const std::string model = testing::SaveTestModel(testing::TestModel::kForkJoin);
  const std::string db = testing::TestDir() + "/recorded.db";
  const std::string bin = std::string(NIMBLE_BINARY_DIR) + "/cli/";
  std::remove(db.c_str());
  ASSERT_EQ(std::system((bin + "nimble-accelerate " + model + " --input 1x3x8x8 --iters 20 --mode multi --db " + db +
                         " --record-replays 4 -o " + testing::TestDir() + "/recorded.nimble").c_str()),
            0);
  StatusOr<std::unique_ptr<store::RunReader>> reader = store::RunReader::Open(db);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  StatusOr<std::vector<RunInfo>> runs = (*reader)->Runs();
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 3u);
  EXPECT_EQ((*runs)[0].mode, RunMode::kEager);
  EXPECT_FALSE((*reader)->LoadAttribution((*runs)[0].id)->empty()) << "the model's own run, kernels attributed";
  for (size_t i : {1, 2}) {
    const RunInfo& run = (*runs)[i];
    EXPECT_EQ(run.mode, i == 1 ? RunMode::kAotSingle : RunMode::kAotMulti);
    EXPECT_EQ(run.iterations, 4);
    StatusOr<Trace> trace = (*reader)->LoadTrace(run.id);
    ASSERT_TRUE(trace.ok()) << trace.status().ToString();
    ASSERT_FALSE(trace->kernels.empty());
    std::set<int64_t> streams, nodes;
    for (const KernelRecord& k : trace->kernels) {
      EXPECT_NE(k.graph_node_id, 0) << "every replayed kernel carries its graph node";
      streams.insert(k.stream.value());
      nodes.insert(k.graph_node_id);
    }
    EXPECT_EQ(trace->kernels.size() % 4, 0u) << "each of the 4 replays runs the same kernels";
    EXPECT_EQ(nodes.size(), trace->kernels.size() / 4);
    if (run.mode == RunMode::kAotMulti) {
      EXPECT_GE(streams.size(), 2u) << "the branches ran on streams of their own";
    }
    StatusOr<std::optional<StreamAssignment>> assignment = (*reader)->LoadAssignment(run.id);
    ASSERT_TRUE(assignment.ok() && assignment->has_value());
  }
}

// --batch-sizes: one model.nimble, a graph per input shape captured into one pool; each call runs the
// graph of its shape and computes what the frozen model does at that shape; other shapes are refused
// naming every bucket.
TEST(AotGpuTest, BucketsRunTheGraphOfTheirInputShapeFromOneSharedPool) {
  SKIP_WITHOUT_GPU();
  const std::string model = testing::SaveTestModel(testing::TestModel::kForkJoin);
  const std::string artifact = testing::TestDir() + "/buckets.nimble";
  const std::string json_file = testing::TestDir() + "/buckets.json";
  const std::string bin = std::string(NIMBLE_BINARY_DIR) + "/cli/";
  const std::string db = testing::TestDir() + "/buckets.db";
  std::remove(db.c_str());
  ASSERT_EQ(std::system((bin + "nimble-accelerate " + model + " --input 1x3x8x8 --batch-sizes 1,4 --iters 10 --db " + db +
                         " --record-replays 2 --json -o " + artifact + " > " + json_file).c_str()),
            0);
  std::ifstream in(json_file);
  const nlohmann::json report = nlohmann::json::parse(in);
  ASSERT_EQ(report.at("buckets").size(), 2u);
  EXPECT_EQ(report.at("buckets")[1].at("inputs"), "4x3x8x8");
  EXPECT_GT(report.at("shared_weights").get<int>(), 0) << "the second bucket's weights are the first's";
  // The second bucket reuses blocks the first freed (on the same streams), so the shared pool is smaller.
  EXPECT_LT(report.at("shared_pool_bytes").get<int64_t>(), report.at("separate_pool_bytes").get<int64_t>());
  // With --db each bucket is recorded at its own shapes (a run of another shape launches other kernels)
  // and its replays stored: eager, aot-single and aot-multi per bucket, told apart by their inputs.
  StatusOr<std::unique_ptr<store::RunReader>> reader = store::RunReader::Open(db);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  StatusOr<std::vector<RunInfo>> runs = (*reader)->Runs();
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 6u);
  std::set<std::pair<std::string, RunMode>> kinds;
  for (const RunInfo& run : *runs) kinds.insert({run.inputs, run.mode});
  for (const std::string inputs : {"1x3x8x8", "4x3x8x8"}) {
    for (const RunMode mode : {RunMode::kEager, RunMode::kAotSingle, RunMode::kAotMulti}) {
      EXPECT_TRUE(kinds.count({inputs, mode})) << inputs << " " << RunModeName(mode);
    }
  }
  EXPECT_EQ(std::system((bin + "nimble-run " + artifact + " --iters 10").c_str()), 0);
  EXPECT_EQ(std::system((bin + "nimble-run " + artifact + " --input 4x3x8x8 --iters 10").c_str()), 0);
  EXPECT_NE(std::system((bin + "nimble-run " + artifact + " --input 2x3x8x8 --iters 5").c_str()), 0);

  StatusOr<Runner> runner = Runner::Load(artifact);
  ASSERT_TRUE(runner.ok()) << runner.status().ToString();
  ASSERT_EQ(runner->bucket_count(), 2);
  EXPECT_EQ(runner->bucket_inputs(1)[0].shape, (std::vector<int64_t>{4, 3, 8, 8}));
  for (const int64_t batch : {4, 1, 4}) {  // back and forth between the graphs sharing the pool
    const std::vector<HostTensor> inputs = {HostTensor::Random({batch, 3, 8, 8}, 7 + batch)};
    StatusOr<std::vector<HostTensor>> got = runner->Run(inputs);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(runner->inputs()[0].shape[0], batch);
    StatusOr<ModelGraph> reference = LoadModelGraph(model, {{batch, 3, 8, 8}});
    ASSERT_TRUE(reference.ok());
    StatusOr<std::vector<HostTensor>> expected = RunOnce(reference->model, inputs);
    ASSERT_TRUE(expected.ok());
    EXPECT_EQ((*got)[0].shape, (*expected)[0].shape);
    EXPECT_LE(*MaxRelativeError(*got, *expected), 1e-4);
  }
  StatusOr<std::vector<HostTensor>> wrong = runner->Run({HostTensor::Random({2, 3, 8, 8}, 1)});
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(wrong.status().message().find("no bucket was captured for inputs of shape 2x3x8x8; its buckets: 1x3x8x8 | "
                                          "4x3x8x8"),
            std::string::npos)
      << wrong.status().message();
  StatusOr<std::vector<int64_t>> latencies = runner->BucketLatencies(1, 5);
  ASSERT_TRUE(latencies.ok());
  EXPECT_EQ(latencies->size(), 5u);
  EXPECT_FALSE(runner->BucketLatencies(2, 5).ok());
}

TEST(AotGpuTest, AProgramWithoutInputFlagsRunsOnItsSignature) {
  SKIP_WITHOUT_GPU();
  const std::string program = std::string(NIMBLE_SOURCE_DIR) + "/tests/accelerate/data/export/cnn_branches.pt2";
  const std::string log = testing::TestDir() + "/signature.log";
  const std::string bin = std::string(NIMBLE_BINARY_DIR) + "/cli/";
  ASSERT_EQ(std::system((bin + "nimble-accelerate " + program + " --iters 5 -o " + testing::TestDir() +
                         "/signature.nimble > " + log + " 2>&1").c_str()),
            0);
  std::ifstream in(log);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("inputs from the program's signature"), std::string::npos) << text;
}

namespace {

// nimble-accelerate's --json for `model` with `args`; fails the test when it does not run.
nlohmann::json AccelerateJson(const std::string& model, const std::string& args, const std::string& name) {
  const std::string bin = std::string(NIMBLE_BINARY_DIR) + "/cli/";
  const std::string json = testing::TestDir() + "/" + name + ".json";
  const int rc = std::system((bin + "nimble-accelerate " + model + " " + args + " --iters 10 --json -o " +
                              testing::TestDir() + "/" + name + ".nimble > " + json).c_str());
  EXPECT_EQ(rc, 0) << name;
  std::ifstream in(json);
  return rc == 0 ? nlohmann::json::parse(in) : nlohmann::json::object();
}

// The layout choice says what each layout's kernels took and keeps the one that took less.
void ExpectLayoutChosen(const nlohmann::json& result) {
  const std::string choice = result.value("memory_format_choice", "");
  std::smatch m;
  ASSERT_TRUE(std::regex_match(choice, m, std::regex(R"(contiguous ([0-9.]+) ms, channels_last ([0-9.]+) ms of kernels per iteration: (\w+))")))
      << choice;
  const double contiguous = std::stod(m[1]), nhwc = std::stod(m[2]);
  EXPECT_GT(contiguous, 0);
  EXPECT_GT(nhwc, 0);
  // The times print to the microsecond; the choice compares nanoseconds, so a printed tie says nothing.
  if (nhwc != contiguous) {
    EXPECT_EQ(m[3], nhwc < contiguous ? "channels_last" : "contiguous");
  }
  EXPECT_EQ(result["memory_format"], m[3]);
}

}  // namespace

// Half-precision convolutions with a depthwise one: auto records the model in both layouts, says what
// each one's kernels took, and captures the layout whose kernels took less; a layout asked for is kept
// without a trial. measure makes the trial for a float32 model too, which auto leaves contiguous.
TEST(AotGpuTest, DepthwiseHalfPrecisionModelsAreRecordedInBothLayouts) {
  SKIP_WITHOUT_GPU();
  const std::string half = testing::SaveModelFromSource(R"(
def forward(self, x):
    a = torch.relu(torch.conv2d(x, self.w0.to(15), None, [1, 1], [2, 2], [1, 1], 16))
    return torch.conv2d(a, self.w1.to(15), None, [1, 1], [0, 0])
)", {{16, 1, 5, 5}, {16, 16, 1, 1}});
  ExpectLayoutChosen(AccelerateJson(half, "--input 1x16x64x64:bfloat16", "depthwise_auto"));
  const nlohmann::json asked = AccelerateJson(half, "--input 1x16x64x64:bfloat16 --memory-format contiguous", "depthwise_nchw");
  EXPECT_EQ(asked["memory_format"], "contiguous");
  EXPECT_EQ(asked["memory_format_choice"], "");
  const std::string single = testing::SaveModelFromSource(R"(
def forward(self, x):
    return torch.relu(torch.conv2d(x, self.w0, None, [1, 1], [1, 1]))
)", {{16, 16, 3, 3}});
  const nlohmann::json fp32 = AccelerateJson(single, "--input 1x16x32x32", "fp32_auto");
  EXPECT_EQ(fp32["memory_format"], "contiguous");
  EXPECT_EQ(fp32["memory_format_choice"], "");
  ExpectLayoutChosen(AccelerateJson(single, "--input 1x16x32x32 --memory-format measure", "fp32_measure"));
}

// float16 convolutions go channels_last by default (FrontEndOptions::memory_format): nimble-accelerate
// says so, and the model.nimble it writes computes in a new process what the contiguous model does.
TEST(AotGpuTest, HalfPrecisionConvolutionsRunChannelsLastAndAgreeWithTheContiguousModel) {
  SKIP_WITHOUT_GPU();
  const std::string model = testing::SaveModelFromSource(R"(
def forward(self, x):
    a = torch.relu(torch.conv2d(x, self.w0.to(5), None, [1, 1], [1, 1]))
    b = torch.relu(torch.conv2d(x, self.w1.to(5), None, [1, 1], [1, 1]))
    return torch.conv2d(a + b, self.w2.to(5), None, [1, 1], [1, 1])
)", {{8, 3, 3, 3}, {8, 3, 3, 3}, {4, 8, 3, 3}});
  const std::string artifact = testing::TestDir() + "/half_nhwc.nimble";
  const std::string json = testing::TestDir() + "/half_nhwc.json";
  const std::string bin = std::string(NIMBLE_BINARY_DIR) + "/cli/";
  ASSERT_EQ(std::system((bin + "nimble-accelerate " + model + " --input 1x3x16x16:float16 --iters 10 --json -o " +
                         artifact + " > " + json).c_str()),
            0);
  std::ifstream in(json);
  const nlohmann::json result = nlohmann::json::parse(in);
  EXPECT_EQ(result["memory_format"], "channels_last");
  StatusOr<ModelGraph> contiguous = LoadModelGraph(
      model, {TensorSpec{.shape = {1, 3, 16, 16}, .dtype = DType::kFloat16}},
      FrontEndOptions{.memory_format = MemoryFormat::kContiguous, .device = "cuda"});
  ASSERT_TRUE(contiguous.ok()) << contiguous.status().ToString();
  HostTensor input = HostTensor::Random({1, 3, 16, 16}, 3);
  input.dtype = DType::kFloat16;
  StatusOr<std::vector<HostTensor>> expected = RunOnce(contiguous->model, {input});
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();
  StatusOr<Runner> runner = Runner::Load(artifact);
  ASSERT_TRUE(runner.ok()) << runner.status().ToString();
  StatusOr<std::vector<HostTensor>> replayed = runner->Run({input});
  ASSERT_TRUE(replayed.ok()) << replayed.status().ToString();
  StatusOr<double> error = MaxRelativeError(*replayed, *expected);
  ASSERT_TRUE(error.ok()) << error.status().ToString();
  EXPECT_LE(*error, 1e-2);
}

}  // namespace
}  // namespace nimble::accelerate
