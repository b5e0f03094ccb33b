// The stream rewrite on the CPU: the nimble:: operators it inserts (counted in the IR text), the
// model.nimble round trip, and that the scheduled graph computes exactly what the frozen one does
// (the operators do nothing without a stream context). Models are built by the tests, including
// random branching ones checked against the assignment they were given, one whose Tensor[] output
// crosses streams, and run errors that name the operator.
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
#include "test_models.h"

namespace nimble::accelerate {
namespace {

using testing::SaveModelFromSource;
using testing::SaveTestModel;
using testing::TestDir;
using testing::TestModel;

int Count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

int StreamChanges(const StreamAssignment& assignment) {
  int changes = 0;
  int64_t current = 0;
  for (StreamId stream : assignment.op_stream) {
    if (stream.value() != current) ++changes;
    current = stream.value();
  }
  return changes;
}

std::vector<HostTensor> Inputs(const std::vector<std::vector<int64_t>>& shapes, uint64_t seed) {
  std::vector<HostTensor> inputs;
  for (size_t i = 0; i < shapes.size(); ++i) inputs.push_back(HostTensor::Random(shapes[i], seed + i));
  return inputs;
}

RewriteOptions Freeing(CrossStreamFree how) {
  RewriteOptions options;
  options.cross_stream_free = how;
  return options;
}

// Rewrites `model` with `assignment`, checks the inserted operators, saves and reloads the result
// and compares outputs with the frozen model's. Returns the rewrite (no model on failure).
ScheduledModel CheckSchedule(const ModelGraph& model, const std::vector<std::vector<int64_t>>& shapes,
                             const StreamAssignment& assignment, const RewriteOptions& options = {}) {
  StatusOr<ScheduledModel> scheduled = RewriteForStreams(model.model, model.graph, assignment, options);
  EXPECT_TRUE(scheduled.ok()) << scheduled.status().ToString();
  if (!scheduled.ok()) return {};
  const std::string text = scheduled->model.GraphText();
  const int syncs = static_cast<int>(assignment.syncs.size());
  EXPECT_EQ(Count(text, "nimble::record_event("), syncs) << text;
  EXPECT_EQ(Count(text, "nimble::wait_event("), syncs) << text;
  EXPECT_EQ(Count(text, "nimble::set_stream("), StreamChanges(assignment)) << text;
  EXPECT_EQ(Count(text, "nimble::fork_streams("), 1);
  EXPECT_EQ(Count(text, "nimble::join_streams("), 1);
  const bool seeded = std::any_of(options.pool_seeds.begin(), options.pool_seeds.end(), [](int64_t b) { return b > 0; });
  EXPECT_EQ(Count(text, "nimble::seed_pool("), seeded ? 1 : 0) << text;
  EXPECT_EQ(scheduled->summary.record_nodes, syncs);
  EXPECT_EQ(Count(text, "nimble::record_stream("), scheduled->summary.recorded_values) << text;
  EXPECT_EQ(Count(text, "nimble::release("), scheduled->summary.released_values) << text;
  EXPECT_EQ(Count(text, "nimble::op_begin("), options.mark_ops ? static_cast<int>(model.graph.ops.size()) : 0) << text;
  if (options.cross_stream_free != CrossStreamFree::kAtJoin) {
    EXPECT_EQ(scheduled->summary.kept_values, 0);
  }
  if (options.cross_stream_free != CrossStreamFree::kOnProducerStream) {
    EXPECT_EQ(scheduled->summary.released_values, 0);
  }
  EXPECT_EQ(Count(model.model.GraphText(), "nimble::"), 0) << "the frozen model must stay untouched";

  ArtifactMeta meta;
  meta.device_name = "cpu";
  StatusOr<ArtifactHost> host = DescribeHost("cpu");
  EXPECT_TRUE(host.ok());
  meta.nimble_version = host->nimble_version;
  meta.torch_version = host->torch_version;
  meta.mode = RunMode::kAotMulti;
  meta.inputs = Float32Specs(shapes);
  meta.schedule = assignment;
  const std::string file = TestDir() + "/rewrite_" + std::to_string(std::random_device{}()) + ".nimble";
  EXPECT_TRUE(SaveArtifact(scheduled->model, meta, file).ok());
  StatusOr<LoadedArtifact> loaded = LoadArtifact(file, "cpu");
  EXPECT_TRUE(loaded.ok()) << loaded.status().ToString();
  if (!loaded.ok()) return {};
  EXPECT_EQ(loaded->meta, meta);
  const std::string reloaded = loaded->model.GraphText();
  EXPECT_EQ(Count(reloaded, "nimble::record_event("), syncs) << reloaded;
  EXPECT_EQ(Count(reloaded, "nimble::wait_event("), syncs) << reloaded;
  EXPECT_EQ(Count(reloaded, "nimble::set_stream("), StreamChanges(assignment)) << reloaded;
  EXPECT_EQ(Count(reloaded, "nimble::seed_pool("), seeded ? 1 : 0) << reloaded;

  const std::vector<HostTensor> inputs = Inputs(shapes, 3);
  StatusOr<std::vector<HostTensor>> expected = RunOnce(model.model, inputs);
  StatusOr<std::vector<HostTensor>> rewritten = RunOnce(scheduled->model, inputs);
  StatusOr<std::vector<HostTensor>> round_trip = RunOnce(loaded->model, inputs);
  EXPECT_TRUE(expected.ok() && rewritten.ok() && round_trip.ok());
  if (expected.ok() && rewritten.ok() && round_trip.ok()) {
    EXPECT_EQ(*MaxRelativeError(*rewritten, *expected), 0.0);
    EXPECT_EQ(*MaxRelativeError(*round_trip, *expected), 0.0);
  }
  return std::move(*scheduled);
}

// CheckSchedule with Algorithm 1's assignment, capped at `max_streams`. Returns its stream count.
int32_t CheckRewrite(const std::string& path, const std::vector<std::vector<int64_t>>& shapes, int32_t max_streams) {
  StatusOr<ModelGraph> model = LoadModelGraph(path, shapes);
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  if (!model.ok()) return 0;
  StatusOr<analysis::Dag> dag = analysis::Dag::FromOpGraph(model->graph);
  EXPECT_TRUE(dag.ok());
  const analysis::Dag reduced = analysis::TransitiveReduction(*dag);
  const StreamAssignment assignment = analysis::LimitStreams(analysis::AssignStreams(*dag), max_streams, reduced.Edges());
  CheckSchedule(*model, shapes, assignment);
  return assignment.num_streams;
}

// The first line of the IR text that contains `needle`, or "".
std::string LineWith(const std::string& text, const std::string& needle) {
  const size_t at = text.find(needle);
  if (at == std::string::npos) return "";
  const size_t begin = text.rfind('\n', at) + 1;
  return text.substr(begin, text.find('\n', at) - begin);
}

TEST(StreamRewriteTest, ForkJoinGetsOneStreamPerBranchAndExactSyncs) {
  EXPECT_GE(CheckRewrite(SaveTestModel(TestModel::kForkJoin), {{1, 3, 8, 8}}, 0), 3);
}

// relu, tanh, sigmoid, add, mul with tanh on a side stream: relu's tensor crosses to it and back.
constexpr const char* kSideTanh = R"(
def forward(self, x):
    a = torch.relu(x)
    b = torch.tanh(a)
    c = torch.sigmoid(x)
    d = b + c
    return d * 2.0
)";

StreamAssignment SideTanhAssignment() {
  StreamAssignment assignment;
  assignment.num_streams = 2;
  assignment.op_stream = {StreamId(0), StreamId(1), StreamId(0), StreamId(0), StreamId(0)};
  assignment.syncs = {OpEdge{OpId(0), OpId(1), EdgeKind::kData}, OpEdge{OpId(1), OpId(3), EdgeKind::kData}};
  return assignment;
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

TEST(StreamRewriteTest, RandomBranchingModels) {
  for (uint32_t seed = 1; seed <= 12; ++seed) {
    std::mt19937 rng(seed);
    const std::string source = RandomSource(rng, 3 + static_cast<int>(rng() % 10));
    SCOPED_TRACE("seed " + std::to_string(seed) + ":\n" + source);
    CheckRewrite(SaveModelFromSource(source, {}), {{2, 3}}, 0);
  }
}

// aten::broadcast_tensors returns a Tensor[]; here its elements are read on two streams: relu (0),
// broadcast_tensors (1), sigmoid (2) on stream 0, tanh (3) alone on stream 1, add (4) on stream 0.
StatusOr<ModelGraph> ListCrossingStreams(StreamAssignment* assignment) {
  const std::string source = R"(
def forward(self, x):
    a = torch.relu(x)
    parts = torch.broadcast_tensors([a, x])
    b = torch.sigmoid(parts[0])
    c = torch.tanh(parts[1])
    return b + c
)";
  StatusOr<ModelGraph> model = LoadModelGraph(SaveModelFromSource(source, {}), {{2, 3}});
  if (!model.ok()) return model;
  EXPECT_EQ(model->graph.ops.size(), 5u);
  EXPECT_EQ(model->graph.ops[1].kind, "aten::broadcast_tensors");
  EXPECT_EQ(model->graph.ops[3].kind, "aten::tanh");
  assignment->num_streams = 2;
  assignment->op_stream = {StreamId(0), StreamId(0), StreamId(0), StreamId(1), StreamId(0)};
  assignment->syncs = {OpEdge{OpId(1), OpId(3), EdgeKind::kData}, OpEdge{OpId(3), OpId(4), EdgeKind::kData}};
  return model;
}

// "%name" of the value `line` defines.
std::string DefinedName(const std::string& line) {
  return line.substr(line.find('%'), line.find(" :") - line.find('%'));
}

bool HasArgument(const std::string& line, const std::string& name) {
  return line.find(name + ",") != std::string::npos || line.find(name + ")") != std::string::npos;
}

// Kept until the join (for comparison): the list itself, not only plain tensor outputs, must be an
// argument of join_streams, so that its tensors live until the join, and the Any[] keep list must
// survive the model.nimble round trip.
TEST(StreamRewriteTest, ListOutputsReadOnAnotherStreamAreKeptUntilTheJoinWhenAsked) {
  StreamAssignment assignment;
  StatusOr<ModelGraph> model = ListCrossingStreams(&assignment);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const ScheduledModel scheduled =
      CheckSchedule(*model, {{2, 3}}, assignment, Freeing(CrossStreamFree::kAtJoin));
  ASSERT_FALSE(scheduled.model.empty());
  EXPECT_EQ(scheduled.summary.kept_values, 2);  // the list of broadcast_tensors and tanh's tensor
  EXPECT_EQ(scheduled.summary.recorded_values, 0);
  const std::string text = scheduled.model.GraphText();
  const std::string list_name = DefinedName(LineWith(text, "aten::broadcast_tensors("));
  const std::string keep = LineWith(text, "Any[] = prim::ListConstruct(");
  EXPECT_TRUE(HasArgument(keep, list_name)) << list_name << " is not in the keep list: " << keep << "\n" << text;
}

// By default nothing is held to the join: a value read on another stream is marked as used there right
// after the read (tanh's tensor, read by the add on stream 0: nimble::record_stream after the add). The
// list of broadcast_tensors is left alone: its tensors are views of the input x, which outlives the run
// (and the side streams), and the run never frees them.
TEST(StreamRewriteTest, ValuesReadOnAnotherStreamAreRecordedThereAfterTheRead) {
  StreamAssignment assignment;
  StatusOr<ModelGraph> model = ListCrossingStreams(&assignment);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const ScheduledModel scheduled = CheckSchedule(*model, {{2, 3}}, assignment);
  ASSERT_FALSE(scheduled.model.empty());
  EXPECT_EQ(scheduled.summary.recorded_values, 1);
  const std::string text = scheduled.model.GraphText();
  EXPECT_EQ(LineWith(text, "Any[] = prim::ListConstruct()").empty(), false) << "join_streams keeps nothing:\n" << text;
  const std::string list_name = DefinedName(LineWith(text, "aten::broadcast_tensors("));
  const std::string tanh_name = DefinedName(LineWith(text, "aten::tanh("));
  EXPECT_EQ(text.find("nimble::record_stream(" + list_name + ")"), std::string::npos) << text;
  const size_t tanh_record = text.find("nimble::record_stream(" + tanh_name + ")");
  ASSERT_NE(tanh_record, std::string::npos) << text;
  EXPECT_GT(tanh_record, text.find("aten::add(")) << "recorded after its reader:\n" << text;
}

// A value read on another stream is released on its producer's stream (the default) right before the
// first op of that stream that waits for the reader, after the wait: relu's tensor, made on stream 0 and
// read by tanh on stream 1, is released before the add, which waits for tanh; sigmoid, on stream 0 between
// them, is not ordered after tanh. tanh's tensor has no such point (stream 1 runs nothing after the add)
// and is recorded instead. With record_stream asked for, both are recorded.
TEST(StreamRewriteTest, ValuesReadOnAnotherStreamAreReleasedOnTheirProducersStreamAfterTheWait) {
  StatusOr<ModelGraph> model = LoadModelGraph(SaveModelFromSource(kSideTanh, {}), {{2, 3}});
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  ASSERT_EQ(model->graph.ops.size(), 5u);
  const StreamAssignment assignment = SideTanhAssignment();
  const ScheduledModel scheduled = CheckSchedule(*model, {{2, 3}}, assignment);
  ASSERT_FALSE(scheduled.model.empty());
  EXPECT_EQ(scheduled.summary.released_values, 1);
  EXPECT_EQ(scheduled.summary.recorded_values, 1);
  const std::string text = scheduled.model.GraphText();
  EXPECT_EQ(Count(text, "nimble::release("), 1) << text;
  const std::string relu = DefinedName(LineWith(text, "aten::relu("));
  const std::string tanh = DefinedName(LineWith(text, "aten::tanh("));
  const size_t release = text.find("nimble::release(" + relu + ")");
  ASSERT_NE(release, std::string::npos) << text;
  EXPECT_GT(release, text.find("aten::sigmoid(")) << text;
  EXPECT_GT(release, text.find("nimble::wait_event(", text.find("aten::sigmoid("))) << "after the add's wait:\n" << text;
  EXPECT_LT(release, text.find("aten::add(")) << text;
  EXPECT_NE(text.find("nimble::record_stream(" + tanh + ")"), std::string::npos) << text;

  const ScheduledModel recorded =
      CheckSchedule(*model, {{2, 3}}, assignment, Freeing(CrossStreamFree::kAfterLastReader));
  ASSERT_FALSE(recorded.model.empty());
  EXPECT_EQ(recorded.summary.released_values, 0);
  EXPECT_EQ(recorded.summary.recorded_values, 2);
}

// A value that a view made between its producer and its release point shares memory with is not
// released (the guard is conservative: here the view's reader is ordered before that point, but a view
// read further on would not be). Recorded instead.
TEST(StreamRewriteTest, ValuesWhoseMemoryAViewSharesAreNotReleased) {
  const std::string source = R"(
def forward(self, x):
    a = torch.relu(x)
    b = torch.tanh(a)
    v = a.t()
    c = torch.sigmoid(v)
    d = b + c.t()
    return d * 2.0
)";
  StatusOr<ModelGraph> model = LoadModelGraph(SaveModelFromSource(source, {}), {{2, 3}});
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const size_t n = model->graph.ops.size();
  ASSERT_GE(n, 4u);
  StreamAssignment assignment;
  assignment.num_streams = 2;
  assignment.op_stream.assign(n, StreamId(0));
  assignment.op_stream[1] = StreamId(1);
  assignment.syncs = {OpEdge{OpId(0), OpId(1), EdgeKind::kData}};
  // The add is the first op after tanh whose inputs include tanh's output: it waits for it.
  for (size_t op = 2; op < n; ++op) {
    if (model->graph.ops[op].kind == "aten::add") {
      assignment.syncs.push_back(OpEdge{OpId(1), OpId(static_cast<int64_t>(op)), EdgeKind::kData});
      break;
    }
  }
  ASSERT_EQ(assignment.syncs.size(), 2u);
  const ScheduledModel scheduled = CheckSchedule(*model, {{2, 3}}, assignment);
  ASSERT_FALSE(scheduled.model.empty());
  const std::string text = scheduled.model.GraphText();
  const std::string relu = DefinedName(LineWith(text, "aten::relu("));
  EXPECT_EQ(text.find("nimble::release(" + relu + ")"), std::string::npos) << text;
  EXPECT_NE(text.find("nimble::record_stream(" + relu + ")"), std::string::npos) << text;
}

// aten::atleast_1d hands its input back without declaring it in its schema, so alias analysis takes
// its output for new memory; the shape run saw the storage shared. Neither relu's tensor (read through
// it on other streams) nor the op's own output is released: relu's block would go back to stream 0
// while sigmoid, on stream 2 and not ordered before exp, may still read it. Both are recorded instead.
TEST(StreamRewriteTest, MemoryAnUndeclaredViewSharesIsNotReleased) {
  const std::string source = R"(
def forward(self, x):
    a = torch.relu(x)
    y = torch.atleast_1d(a)
    s = torch.sigmoid(y)
    t = torch.tanh(y)
    u = s + t
    return torch.relu(u), torch.exp(x)
)";
  StatusOr<ModelGraph> model = LoadModelGraph(SaveModelFromSource(source, {}), {{2, 3}});
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  ASSERT_EQ(model->graph.ops.size(), 7u) << "atleast_1d must stay an op for this case";
  ASSERT_EQ(model->graph.ops[1].kind, "aten::atleast_1d");
  StreamAssignment assignment;
  assignment.num_streams = 3;
  assignment.op_stream = {StreamId(0), StreamId(1), StreamId(2), StreamId(0), StreamId(1), StreamId(1), StreamId(0)};
  assignment.syncs = {OpEdge{OpId(0), OpId(1), EdgeKind::kData}, OpEdge{OpId(1), OpId(2), EdgeKind::kData},
                      OpEdge{OpId(1), OpId(3), EdgeKind::kData}, OpEdge{OpId(2), OpId(4), EdgeKind::kData},
                      OpEdge{OpId(3), OpId(4), EdgeKind::kData}};
  const std::vector<int64_t> points = ReleasePoints(model->graph, assignment);
  EXPECT_EQ(points[0], 3) << "relu's only reader (atleast_1d) is ordered before tanh";
  const ScheduledModel scheduled = CheckSchedule(*model, {{2, 3}}, assignment);
  ASSERT_FALSE(scheduled.model.empty());
  const std::string text = scheduled.model.GraphText();
  EXPECT_EQ(Count(text, "nimble::release("), 0) << text;
  const std::string relu = DefinedName(LineWith(text, "aten::relu("));
  EXPECT_NE(text.find("nimble::record_stream(" + relu + ")"), std::string::npos) << text;
}

// ReleasePoints against brute force on random assignments: for each op with readers, the first op of
// its stream after all of them that every reader reaches through stream order and syncs.
TEST(StreamRewriteTest, ReleasePointsMatchReachabilityOnRandomAssignments) {
  std::mt19937 rng(20261126);
  for (int trial = 0; trial < 300; ++trial) {
    const int n = 2 + static_cast<int>(rng() % 24);
    const int streams = 1 + static_cast<int>(rng() % 4);
    OpGraph graph;
    for (int i = 0; i < n; ++i) graph.ops.push_back(Op{.id = OpId(i), .name = "op" + std::to_string(i), .kind = "k"});
    StreamAssignment assignment;
    assignment.num_streams = streams;
    for (int i = 0; i < n; ++i) assignment.op_stream.push_back(StreamId(static_cast<int32_t>(rng() % streams)));
    for (int dst = 1; dst < n; ++dst) {
      for (int src = 0; src < dst; ++src) {
        if (rng() % 4 == 0) graph.edges.push_back(OpEdge{OpId(src), OpId(dst), EdgeKind::kData});
        if (rng() % 6 == 0) assignment.syncs.push_back(OpEdge{OpId(src), OpId(dst), EdgeKind::kData});
      }
    }
    // reach[a][b]: b runs after a, by stream order or syncs, transitively (ops in index order).
    std::vector<std::vector<uint8_t>> reach(n, std::vector<uint8_t>(n, 0));
    std::vector<std::vector<int>> next(n);
    for (int a = 0; a < n; ++a) {
      for (int b = a + 1; b < n; ++b) {
        if (assignment.op_stream[a] == assignment.op_stream[b]) next[a].push_back(b);
      }
    }
    for (const OpEdge& s : assignment.syncs) next[s.src.value()].push_back(static_cast<int>(s.dst.value()));
    for (int a = n - 1; a >= 0; --a) {
      for (int b : next[a]) {
        reach[a][b] = 1;
        for (int c = 0; c < n; ++c) reach[a][c] |= reach[b][c];
      }
    }
    const std::vector<int64_t> points = ReleasePoints(graph, assignment);
    ASSERT_EQ(points.size(), static_cast<size_t>(n));
    for (int p = 0; p < n; ++p) {
      std::vector<int> readers;
      for (const OpEdge& e : graph.edges) {
        if (e.src.value() == p) readers.push_back(static_cast<int>(e.dst.value()));
      }
      int64_t expected = -1;
      if (!readers.empty()) {
        const int last = *std::max_element(readers.begin(), readers.end());
        for (int x = last + 1; x < n && expected < 0; ++x) {
          if (assignment.op_stream[x] != assignment.op_stream[p]) continue;
          if (std::all_of(readers.begin(), readers.end(), [&](int r) { return reach[r][x] != 0; })) expected = x;
        }
      }
      EXPECT_EQ(points[p], expected) << "trial " << trial << ", op " << p;
    }
  }
}

// A graph output read on another stream is not recorded either: it outlives the run.
TEST(StreamRewriteTest, OutputsReadOnAnotherStreamAreNotRecorded) {
  const std::string source = R"(
def forward(self, x):
    a = torch.relu(x)
    b = torch.sigmoid(a)
    return a, b
)";
  StatusOr<ModelGraph> model = LoadModelGraph(SaveModelFromSource(source, {}), {{2, 3}});
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  ASSERT_EQ(model->graph.ops.size(), 2u);
  StreamAssignment assignment;
  assignment.num_streams = 2;
  assignment.op_stream = {StreamId(0), StreamId(1)};
  assignment.syncs = {OpEdge{OpId(0), OpId(1), EdgeKind::kData}};
  const ScheduledModel scheduled = CheckSchedule(*model, {{2, 3}}, assignment);
  ASSERT_FALSE(scheduled.model.empty());
  EXPECT_EQ(scheduled.summary.recorded_values, 0) << scheduled.model.GraphText();
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
