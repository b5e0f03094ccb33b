#include "stream_rewrite_checks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "nimble/accelerate/artifact.h"
#include "nimble/accelerate/model_timing.h"
#include "nimble/analysis/dag.h"
#include "nimble/analysis/stream_assignment.h"
#include "nimble/analysis/stream_plan.h"
#include "nimble/analysis/transitive_reduction.h"
#include "test_models.h"

namespace nimble::accelerate::rewrite_checks {

using testing::TestDir;

int Count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

int StreamChanges(const StreamAssignment& assignment, const std::vector<int32_t>& order) {
  int changes = 0;
  int64_t current = 0;
  for (size_t i = 0; i < assignment.op_stream.size(); ++i) {
    const StreamId stream = assignment.op_stream[order.empty() ? i : static_cast<size_t>(order[i])];
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
                             const StreamAssignment& assignment, const RewriteOptions& options) {
  StatusOr<ScheduledModel> scheduled = RewriteForStreams(model.model, model.graph, assignment, options);
  EXPECT_TRUE(scheduled.ok()) << scheduled.status().ToString();
  if (!scheduled.ok()) return {};
  const std::string text = scheduled->model.GraphText();
  const int syncs = static_cast<int>(assignment.syncs.size());
  EXPECT_EQ(Count(text, "nimble::record_event("), syncs) << text;
  EXPECT_EQ(Count(text, "nimble::wait_event("), syncs) << text;
  EXPECT_EQ(Count(text, "nimble::set_stream("), StreamChanges(assignment, options.op_order)) << text;
  EXPECT_EQ(scheduled->summary.reordered, !options.op_order.empty()) << text;
  EXPECT_EQ(Count(text, "nimble::fork_streams("), 1);
  EXPECT_EQ(Count(text, "nimble::join_streams("), 1);
  const bool seeded = std::any_of(options.pool_seeds.begin(), options.pool_seeds.end(), [](int64_t b) { return b > 0; });
  EXPECT_EQ(Count(text, "nimble::seed_pool("), seeded ? 1 : 0) << text;
  EXPECT_EQ(scheduled->summary.record_nodes, syncs);
  EXPECT_EQ(Count(text, "nimble::record_stream("), scheduled->summary.recorded_values) << text;
  EXPECT_EQ(Count(text, "nimble::release("), scheduled->summary.released_values + scheduled->summary.delayed_values) << text;
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
  EXPECT_EQ(Count(reloaded, "nimble::set_stream("), StreamChanges(assignment, options.op_order)) << reloaded;
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

StreamAssignment SideTanhAssignment() {
  StreamAssignment assignment;
  assignment.num_streams = 2;
  assignment.op_stream = {StreamId(0), StreamId(1), StreamId(0), StreamId(0), StreamId(0)};
  assignment.syncs = {OpEdge{OpId(0), OpId(1), EdgeKind::kData}, OpEdge{OpId(1), OpId(3), EdgeKind::kData}};
  return assignment;
}

}  // namespace nimble::accelerate::rewrite_checks
