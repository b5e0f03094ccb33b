// The stream rewrite on the CPU: the nimble:: operators it inserts (counted in the IR text), the
// model.nimble round trip, and that the scheduled graph computes exactly what the frozen one does
// (the operators do nothing without a stream context). Models are built by the tests, including
// random branching ones checked against the assignment they were given, and run errors that name the
// operator. How values that cross streams are freed: stream_rewrite_freeing_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <random>
#include <sstream>
#include <string>

#include "nimble/accelerate/artifact.h"
#include "nimble/accelerate/model_graph.h"
#include "nimble/accelerate/model_timing.h"
#include "nimble/accelerate/stream_rewrite.h"
#include "nimble/analysis/dag.h"
#include "nimble/analysis/stream_assignment.h"
#include "nimble/analysis/stream_plan.h"
#include "nimble/analysis/transitive_reduction.h"
#include "nimble/core/capture_order.h"
#include "nimble/core/release_points.h"
#include "stream_rewrite_checks.h"
#include "test_models.h"

namespace nimble::accelerate {
namespace {

using testing::SaveModelFromSource;
using testing::SaveTestModel;
using testing::TestDir;
using testing::TestModel;

using namespace rewrite_checks;  // NOLINT: the checks shared with stream_rewrite_freeing_test.cpp

TEST(StreamRewriteTest, ForkJoinGetsOneStreamPerBranchAndExactSyncs) {
  EXPECT_GE(CheckRewrite(SaveTestModel(TestModel::kForkJoin), {{1, 3, 8, 8}}, 0), 3);
}

// A marked rewrite (for the allocation trace) names every op once, in op order, each marker carrying
// its op's index, and every stream operator of an op (its set_stream, waits and releases) comes after
// that op's marker with no other op in between. It computes the same outputs (CheckSchedule).
TEST(StreamRewriteTest, MarkedRewritesNameEachOpAheadOfItsStreamOperators) {
  StatusOr<ModelGraph> model = LoadModelGraph(SaveModelFromSource(kSideTanh, {}), {{2, 3}});
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  ASSERT_EQ(model->graph.ops.size(), 5u);
  const StreamAssignment assignment = SideTanhAssignment();  // a wait, a set_stream each way, a release
  RewriteOptions options;
  options.mark_ops = true;
  const ScheduledModel scheduled = CheckSchedule(*model, {{2, 3}}, assignment, options);
  ASSERT_EQ(scheduled.summary.released_values, 1);
  std::map<std::string, int64_t> constants;  // "%12" -> value, for the int constants the markers take
  std::vector<int64_t> markers;
  bool op_since_marker = true;  // an aten op ran since the last marker (or there was none)
  int stream_ops = 0;
  std::istringstream lines(scheduled.model.GraphText());
  for (std::string line; std::getline(lines, line);) {
    const size_t name_end = line.find(" : int = prim::Constant[value=");
    if (name_end != std::string::npos) {
      const std::string name = line.substr(line.find('%'), name_end - line.find('%'));
      constants[name] = std::stoll(line.substr(line.find("value=") + 6));
    } else if (const size_t at = line.find("nimble::op_begin("); at != std::string::npos) {
      const std::string arg = line.substr(at + 17, line.find(')', at) - at - 17);
      ASSERT_EQ(constants.count(arg), 1u) << line;
      markers.push_back(constants[arg]);
      op_since_marker = false;
    } else if (line.find("nimble::set_stream(") != std::string::npos || line.find("nimble::wait_event(") != std::string::npos ||
               line.find("nimble::release(") != std::string::npos) {
      EXPECT_FALSE(op_since_marker) << "a stream operator without its op's marker ahead: " << line;
      ++stream_ops;
    } else if (line.find(" = aten::") != std::string::npos) {
      op_since_marker = true;
    }
  }
  EXPECT_GT(stream_ops, 0);
  ASSERT_EQ(markers.size(), model->graph.ops.size());
  for (size_t op = 0; op < markers.size(); ++op) EXPECT_EQ(markers[op], static_cast<int64_t>(op));
}

// Pool seeds: one nimble::seed_pool right after nimble::fork_streams, holding the bytes per stream; it
// survives the artifact's save and load, and the rewritten model still computes the frozen one's
// outputs (CheckSchedule; on the CPU, with no stream context, the operator is not reached; its effect in
// a capture is the GPU test's). Seeds that do not match the streams are refused; all zero inserts nothing.
TEST(StreamRewriteTest, PoolSeedsFollowTheForkAndAreCheckedAgainstTheStreams) {
  StatusOr<ModelGraph> model = LoadModelGraph(SaveModelFromSource(kSideTanh, {}), {{2, 3}});
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const StreamAssignment assignment = SideTanhAssignment();
  RewriteOptions options;
  options.pool_seeds = {0, 12 << 20};
  const ScheduledModel scheduled = CheckSchedule(*model, {{2, 3}}, assignment, options);
  EXPECT_EQ(scheduled.summary.seeded_streams, 1);
  const std::string text = scheduled.model.GraphText();
  const size_t fork = text.find("nimble::fork_streams(");
  const size_t seed = text.find("nimble::seed_pool(");
  ASSERT_NE(seed, std::string::npos) << text;
  EXPECT_LT(fork, seed);
  EXPECT_EQ(text.find("aten::", fork), text.find("aten::", seed)) << "no op between the fork and the seed: " << text;
  EXPECT_NE(text.find("[0, 12582912]"), std::string::npos) << text;
  options.pool_seeds = {0, 0};
  EXPECT_EQ(CheckSchedule(*model, {{2, 3}}, assignment, options).summary.seeded_streams, 0);
  options.pool_seeds = {12 << 20};
  EXPECT_EQ(RewriteForStreams(model->model, model->graph, assignment, options).status().code(), StatusCode::kInvalidArgument);
  options.pool_seeds = {0, -1};
  EXPECT_EQ(RewriteForStreams(model->model, model->graph, assignment, options).status().code(), StatusCode::kInvalidArgument);
}

TEST(StreamRewriteTest, InPlaceAndTwoInputModels) {
  CheckRewrite(SaveTestModel(TestModel::kInPlaceResidual), {{1, 3, 8, 8}}, 0);
  CheckRewrite(SaveTestModel(TestModel::kInPlaceAfterCat), {{2, 3}}, 0);
  CheckRewrite(SaveTestModel(TestModel::kTwoInputs), {{2, 3}, {2, 3}}, 0);
  CheckRewrite(SaveTestModel(TestModel::kHostShapeMath), {{1, 3, 7, 9}}, 0);
}

TEST(StreamRewriteTest, StreamCapKeepsTheScheduleValid) {
  EXPECT_EQ(CheckRewrite(SaveTestModel(TestModel::kForkJoin), {{1, 3, 8, 8}}, 2), 2);
}

// Random branching models: each value is an elementwise op of one or two earlier values; every value
// not used later is returned.
std::string RandomSource(std::mt19937& rng, int ops) {
  static const char* kUnary[] = {"torch.relu", "torch.sigmoid", "torch.tanh", "torch.neg"};
  std::string code = "def forward(self, x):\n    v0 = torch.relu(x)\n";
  std::vector<int> used(static_cast<size_t>(ops) + 1, 0);
  for (int v = 1; v <= ops; ++v) {
    const int a = static_cast<int>(rng() % static_cast<unsigned>(v));
    used[static_cast<size_t>(a)] = 1;
    if (rng() % 3 == 0 && v > 1) {
      const int b = static_cast<int>(rng() % static_cast<unsigned>(v));
      used[static_cast<size_t>(b)] = 1;
      code += "    v" + std::to_string(v) + " = torch.add(v" + std::to_string(a) + ", v" + std::to_string(b) + ")\n";
    } else {
      code += "    v" + std::to_string(v) + " = " + kUnary[rng() % 4] + "(v" + std::to_string(a) + ")\n";
    }
  }
  std::string outputs;
  for (int v = 0; v <= ops; ++v) {
    if (used[static_cast<size_t>(v)] == 0) outputs += "v" + std::to_string(v) + ", ";
  }
  return code + "    return (" + outputs + ")\n";
}

// A branch capture's order (core/capture_order.h): the ops move into it, each marker in that order,
// and the scheduled graph computes what the frozen one does (CheckSchedule), on random branching
// models and the fork-join test model.
// A model loaded for `shapes`, Algorithm 1's assignment of it, and that assignment's branch capture order.
struct ForBranches {
  ModelGraph model;
  StreamAssignment assignment;
  std::vector<int32_t> order;
};
StatusOr<ForBranches> LoadForBranches(const std::string& path, const std::vector<std::vector<int64_t>>& shapes) {
  NIMBLE_ASSIGN_OR_RETURN(ModelGraph model, LoadModelGraph(path, shapes));
  NIMBLE_ASSIGN_OR_RETURN(analysis::Dag dag, analysis::Dag::FromOpGraph(model.graph));
  StreamAssignment assignment = analysis::AssignStreams(dag);
  std::vector<int32_t> order = BranchCaptureOrder(model.graph, assignment);
  return ForBranches{std::move(model), std::move(assignment), std::move(order)};
}

void CheckInterleaved(const std::string& path, const std::vector<std::vector<int64_t>>& shapes) {
  StatusOr<ForBranches> loaded = LoadForBranches(path, shapes);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  const ModelGraph* model = &loaded->model;
  const StreamAssignment& assignment = loaded->assignment;
  RewriteOptions options;
  options.op_order = loaded->order;
  options.mark_ops = true;
  ASSERT_EQ(options.op_order.size(), model->graph.ops.size());
  const ScheduledModel scheduled = CheckSchedule(*model, shapes, assignment, options);
  const std::string text = scheduled.model.GraphText();
  size_t at = 0;
  for (int32_t op : options.op_order) {
    const size_t marker = text.find("nimble::op_begin(%", at);
    ASSERT_NE(marker, std::string::npos) << text;
    const std::string line = text.substr(text.rfind('\n', marker) + 1, text.find('\n', marker) - text.rfind('\n', marker) - 1);
    // The marker's argument is a constant defined above; its value is in the constant's line.
    const std::string constant = line.substr(line.find("(%") + 1, line.find(')', line.find("(%")) - line.find("(%") - 1);
    const std::string definition = LineWith(text, constant + " : int = prim::Constant[value=");
    EXPECT_NE(definition.find("value=" + std::to_string(op) + "]"), std::string::npos)
        << "expected op " << op << " next, got " << definition;
    at = marker + 1;
  }
  // Values held longer (DelayedReleasePoints): the same outputs, one release per held tensor output.
  const BranchCaptureTimes run = BranchCaptureRun(model->graph, assignment);
  RewriteOptions delayed;
  delayed.op_order = options.op_order;
  delayed.delayed_releases = DelayedReleasePoints(model->graph, assignment, run.start_ns, run.end_ns, 2);
  const ScheduledModel held = CheckSchedule(*model, shapes, assignment, delayed);
  const auto points = std::count_if(delayed.delayed_releases.begin(), delayed.delayed_releases.end(), [](int64_t p) { return p >= 0; });
  EXPECT_GE(held.summary.delayed_values, points);
}

TEST(StreamRewriteTest, OpsMoveIntoTheBranchCaptureOrder) {
  CheckInterleaved(SaveTestModel(TestModel::kForkJoin), {{1, 3, 8, 8}});
  for (uint32_t seed = 1; seed <= 12; ++seed) {
    std::mt19937 rng(seed);
    const std::string source = RandomSource(rng, 3 + static_cast<int>(rng() % 10));
    SCOPED_TRACE("seed " + std::to_string(seed) + ":\n" + source);
    CheckInterleaved(SaveModelFromSource(source, {}), {{2, 3}});
  }
}

// A random op keeps the graph's order (its draws would come in another order otherwise); the
// rewrite still succeeds, and says it did not reorder.
TEST(StreamRewriteTest, ARandomOpKeepsTheGraphOrder) {
  constexpr const char* kRandom = R"(
def forward(self, x):
    a = torch.tanh(torch.relu(x))
    b = torch.rand_like(x)
    c = torch.sigmoid(x)
    return a + b + c
)";
  StatusOr<ForBranches> loaded = LoadForBranches(SaveModelFromSource(kRandom, {}), {{2, 3}});
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  const ModelGraph* model = &loaded->model;
  const StreamAssignment& assignment = loaded->assignment;
  RewriteOptions options;
  options.op_order = loaded->order;
  ASSERT_FALSE(options.op_order.empty());
  StatusOr<ScheduledModel> scheduled = RewriteForStreams(model->model, model->graph, assignment, options);
  ASSERT_TRUE(scheduled.ok()) << scheduled.status().ToString();
  EXPECT_FALSE(scheduled->summary.reordered);
}

TEST(StreamRewriteTest, AnOpOrderThatBreaksADependencyOrAStreamIsRefused) {
  StatusOr<ModelGraph> model = LoadModelGraph(SaveModelFromSource(kSideTanh, {}), {{2, 3}});
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const StreamAssignment assignment = SideTanhAssignment();
  for (const std::vector<int32_t>& order : std::vector<std::vector<int32_t>>{{1, 0, 2, 3, 4}, {0, 1, 3, 2, 4}, {0, 1, 2, 3}, {0, 0, 1, 2, 3}}) {
    RewriteOptions options;
    options.op_order = order;
    StatusOr<ScheduledModel> scheduled = RewriteForStreams(model->model, model->graph, assignment, options);
    EXPECT_EQ(scheduled.status().code(), StatusCode::kInvalidArgument) << scheduled.status().ToString();
  }
}

TEST(StreamRewriteTest, RandomBranchingModels) {
  for (uint32_t seed = 1; seed <= 12; ++seed) {
    std::mt19937 rng(seed);
    const std::string source = RandomSource(rng, 3 + static_cast<int>(rng() % 10));
    SCOPED_TRACE("seed " + std::to_string(seed) + ":\n" + source);
    CheckRewrite(SaveModelFromSource(source, {}), {{2, 3}}, 0);
  }
}


// A scheduled graph that fails at run time names the operator that threw, the outermost one (the
// aten::matmul of the source, not the aten::mm it calls), not the nimble:: operators around it.
TEST(StreamRewriteTest, RunErrorsNameTheOperatorThatThrew) {
  const std::string source = R"(
def forward(self, x):
    a = torch.relu(x)
    b = torch.sigmoid(x)
    return torch.matmul(a, self.w0) + torch.matmul(b, self.w0)
)";
  StatusOr<ModelGraph> model = LoadModelGraph(SaveModelFromSource(source, {{3, 4}}), {{2, 3}});
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  StatusOr<analysis::Dag> dag = analysis::Dag::FromOpGraph(model->graph);
  ASSERT_TRUE(dag.ok());
  StatusOr<ScheduledModel> scheduled = RewriteForStreams(model->model, model->graph, analysis::AssignStreams(*dag));
  ASSERT_TRUE(scheduled.ok()) << scheduled.status().ToString();
  for (const LoadedModel* run : {&model->model, &scheduled->model}) {
    StatusOr<std::vector<HostTensor>> wrong = RunOnce(*run, {HostTensor::Random({2, 5}, 1)});
    ASSERT_FALSE(wrong.ok());
    EXPECT_NE(wrong.status().message().find("run failed in aten::matmul: "), std::string::npos)
        << wrong.status().message();
    EXPECT_TRUE(RunOnce(*run, {HostTensor::Random({2, 3}, 1)}).ok()) << "a failed run leaves nothing behind";
  }
}

// Two input shapes of one model in one model.nimble: a method each, the weights stored once, each
// method computing what its own frozen model does, and the meta's buckets read back in order.
TEST(StreamRewriteTest, BucketsAreMethodsOfOneModuleSharingTheirWeights) {
  const std::string path = SaveModelFromSource(
      "def forward(self, x):\n"
      "    return torch.relu(torch.matmul(x, self.w0)) + torch.sigmoid(torch.matmul(x, self.w1))\n",
      {{256, 256}, {256, 256}});
  StatusOr<ArtifactHost> host = DescribeHost("cpu");
  ASSERT_TRUE(host.ok());
  ArtifactMeta meta;
  meta.device_name = "cpu";
  meta.nimble_version = host->nimble_version;
  meta.torch_version = host->torch_version;
  std::vector<ModelGraph> models;
  std::vector<LoadedModel> scheduled;
  for (const int64_t batch : {1, 4}) {
    StatusOr<ModelGraph> model = LoadModelGraph(path, {{batch, 256}});
    ASSERT_TRUE(model.ok()) << model.status().ToString();
    StatusOr<analysis::Dag> dag = analysis::Dag::FromOpGraph(model->graph);
    ASSERT_TRUE(dag.ok());
    const StreamAssignment assignment = analysis::AssignStreams(*dag);
    EXPECT_EQ(assignment.num_streams, 2);
    StatusOr<ScheduledModel> rewritten = RewriteForStreams(model->model, model->graph, assignment);
    ASSERT_TRUE(rewritten.ok()) << rewritten.status().ToString();
    scheduled.push_back(rewritten->model);
    meta.buckets.push_back({scheduled.size() == 1 ? "forward" : "forward_bucket_1", Float32Specs({{batch, 256}}),
                            RunMode::kAotMulti, assignment, {{"measured_aot_multi_ms", 0.1 * static_cast<double>(batch)}}});
    models.push_back(std::move(*model));
  }
  meta.inputs = meta.buckets[0].inputs;
  meta.schedule = meta.buckets[0].schedule;
  meta.mode = RunMode::kAotMulti;
  meta.format_version = 2;

  const std::string dir = TestDir() + "/buckets_" + std::to_string(std::random_device{}());
  std::filesystem::create_directories(dir);
  StatusOr<SavedArtifact> saved = SaveArtifact(scheduled, meta, dir + "/two.nimble");
  ASSERT_TRUE(saved.ok()) << saved.status().ToString();
  EXPECT_EQ(saved->shared_constants, 2);  // w0 and w1 of the second bucket
  ArtifactMeta one = meta;
  one.buckets.clear();
  one.format_version = 1;
  ASSERT_TRUE(SaveArtifact(scheduled[0], one, dir + "/one.nimble").ok());
  // 512 KiB of weights: stored once, the second bucket adds its code alone.
  const auto one_bytes = static_cast<int64_t>(std::filesystem::file_size(dir + "/one.nimble"));
  EXPECT_GT(one_bytes, 512 * 1024);
  EXPECT_LT(saved->file_bytes, one_bytes + 64 * 1024) << "weights stored twice?";

  StatusOr<LoadedArtifact> loaded = LoadArtifact(dir + "/two.nimble", "cpu");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(loaded->meta, meta);
  ASSERT_EQ(loaded->buckets.size(), 2u);
  for (size_t b = 0; b < 2; ++b) {
    EXPECT_EQ(loaded->buckets[b].inputs(), meta.buckets[b].inputs);
    const std::vector<HostTensor> inputs = Inputs({meta.buckets[b].inputs[0].shape}, 11);
    StatusOr<std::vector<HostTensor>> expected = RunOnce(models[b].model, inputs);
    StatusOr<std::vector<HostTensor>> got = RunOnce(loaded->buckets[b], inputs);
    ASSERT_TRUE(expected.ok() && got.ok());
    EXPECT_EQ((*got)[0].shape, (std::vector<int64_t>{meta.buckets[b].inputs[0].shape[0], 256}));
    EXPECT_EQ(*MaxRelativeError(*got, *expected), 0.0);
  }
  EXPECT_EQ(loaded->model.inputs(), meta.buckets[0].inputs);

  // Counts that disagree, and a first bucket that is not forward, are refused before anything is written.
  std::vector<LoadedModel> too_few = {scheduled[0]};
  StatusOr<SavedArtifact> refused = SaveArtifact(too_few, meta, dir + "/bad.nimble");
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  ArtifactMeta renamed = meta;
  renamed.buckets[0].method = "bucket0";
  refused = SaveArtifact(scheduled, renamed, dir + "/bad.nimble");
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(std::filesystem::exists(dir + "/bad.nimble"));
}

TEST(StreamRewriteTest, RejectsAnAssignmentOfTheWrongSize) {
  StatusOr<ModelGraph> model = LoadModelGraph(SaveTestModel(TestModel::kChain), {{1, 3, 8, 8}});
  ASSERT_TRUE(model.ok());
  StreamAssignment wrong;
  wrong.num_streams = 1;
  StatusOr<ScheduledModel> scheduled = RewriteForStreams(model->model, model->graph, wrong);
  ASSERT_FALSE(scheduled.ok());
  EXPECT_NE(scheduled.status().message().find("covers 0 ops"), std::string::npos) << scheduled.status().message();
}

}  // namespace
}  // namespace nimble::accelerate
