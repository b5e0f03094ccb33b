// The exported sample models (samples/models/export_models.py), when NIMBLE_MODEL_MANIFEST names
// their manifest.json: each loads (on NIMBLE_MODEL_DEVICE, default cpu), extracts a well-formed graph,
// and the time and counts are printed. Skipped when the variable is unset, as in CI.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "nimble/accelerate/model_graph.h"
#include "nimble/analysis/concurrency.h"
#include "nimble/analysis/critical_path.h"
#include "nimble/analysis/dag.h"
#include "nimble/analysis/stream_assignment.h"

namespace nimble::testing {

using namespace ::nimble::accelerate;  // NOLINT: the module under test
namespace {

void CheckAndPrint(const std::string& name, const std::string& file, const std::vector<int64_t>& shape,
                   const FrontEndOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  StatusOr<ModelGraph> model = LoadModelGraph(file, {shape}, options);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const OpGraph& graph = model->graph;
  EXPECT_TRUE(graph.Validate().ok());
  size_t order_edges = 0;
  for (const OpEdge& e : graph.edges) {
    EXPECT_LT(e.src, e.dst);
    order_edges += e.kind == EdgeKind::kOrder ? 1 : 0;
  }
  // What the later stages will see: width (the paper's Deg.), critical path in ops, streams and syncs.
  StatusOr<analysis::Dag> dag = analysis::Dag::FromOpGraph(graph);
  ASSERT_TRUE(dag.ok()) << dag.status().ToString();
  const std::vector<int64_t> unit(graph.ops.size(), 1);
  StatusOr<analysis::CriticalPath> path = analysis::ComputeCriticalPath(*dag, unit);
  ASSERT_TRUE(path.ok()) << path.status().ToString();
  const StreamAssignment streams = analysis::AssignStreams(*dag);
  std::map<std::string, int> kinds;
  for (const Op& op : graph.ops) ++kinds[op.kind];
  std::cout << name << " on " << options.device << (options.optimize ? " (optimized)" : " (not optimized)") << ": "
            << model->graph_nodes
            << " nodes, " << graph.ops.size() << " ops, " << graph.edges.size() << " edges (" << order_edges
            << " order); " << seconds << " s = load " << model->load_ns / 1e9 << " + shape run "
            << model->shape_run_ns / 1e9 << " + extract " << model->extract_ns / 1e9 << "\n    width "
            << analysis::ComputeConcurrency(*dag).width << ", critical path " << path->length_ns << " ops, "
            << streams.num_streams << " streams, " << streams.syncs.size() << " syncs\n   ";
  for (const auto& [kind, count] : kinds) std::cout << " " << kind << "=" << count;
  std::cout << "\n";
}

TEST(ModelZooTest, ExportedModelsLoad) {
  const char* manifest_path = std::getenv("NIMBLE_MODEL_MANIFEST");
  if (manifest_path == nullptr) GTEST_SKIP() << "NIMBLE_MODEL_MANIFEST is not set";
  std::ifstream in(manifest_path);
  ASSERT_TRUE(in) << manifest_path;
  const nlohmann::json manifest = nlohmann::json::parse(in);
  const std::filesystem::path dir = std::filesystem::path(manifest_path).parent_path();
  ASSERT_FALSE(manifest.at("models").empty());
  for (const auto& [name, entry] : manifest.at("models").items()) {
    const std::string file = (dir / entry.at("file").get<std::string>()).string();
    const auto shape = entry.at("input_shape").get<std::vector<int64_t>>();
    const char* device = std::getenv("NIMBLE_MODEL_DEVICE");
    for (const bool optimize : {true, false}) {
      CheckAndPrint(name, file, shape, {.optimize = optimize, .device = device ? device : "cpu"});
    }
  }
}

}  // namespace
}  // namespace nimble::testing
