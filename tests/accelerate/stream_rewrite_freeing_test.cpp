// The stream rewrite's handling of values that cross streams, on the CPU: kept until the join, recorded
// on the reader's stream after each read, or released on the producer's stream after the reader's wait;
// memory a view shares is never released; release points agree with reachability on random
// assignments; graph outputs are not recorded.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>

#include "nimble/accelerate/model_graph.h"
#include "nimble/accelerate/stream_rewrite.h"
#include "nimble/analysis/dag.h"
#include "nimble/analysis/stream_assignment.h"
#include "nimble/analysis/transitive_reduction.h"
#include "stream_rewrite_checks.h"
#include "test_models.h"

namespace nimble::accelerate {
namespace {

using namespace rewrite_checks;  // NOLINT: the checks shared with stream_rewrite_test.cpp
using testing::SaveModelFromSource;

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

}  // namespace
}  // namespace nimble::accelerate
