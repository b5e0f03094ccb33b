// Random branching models: a random DAG is written as TorchScript (one aten op per DAG node, folded
// views, lists and copies-that-are-not wrapped around the operands), saved, loaded and extracted;
// the extracted graph must be exactly the DAG, node for node and edge for edge.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "dag_brute_force.h"
#include "nimble/accelerate/model_graph.h"
#include "test_models.h"

namespace nimble::testing {

using namespace ::nimble::accelerate;  // NOLINT: the module under test
namespace {

// operands[k]: the DAG nodes op k reads; -1 is the model input.
struct RandomDag {
  std::vector<std::vector<int32_t>> operands;
};

RandomDag MakeDag(std::mt19937& rng, int32_t ops) {
  RandomDag dag;
  for (int32_t k = 0; k < ops; ++k) {
    std::vector<int32_t> candidates;
    for (int32_t v = -1; v < k; ++v) candidates.push_back(v);
    std::shuffle(candidates.begin(), candidates.end(), rng);
    const auto count = std::min<size_t>(1 + rng() % 3, candidates.size());
    candidates.resize(count);
    std::sort(candidates.begin(), candidates.end());
    dag.operands.push_back(candidates);
  }
  return dag;
}

// The value `v` as an operand, wrapped in plumbing that launches nothing (every wrapping is
// folded by the front end: views, list packing and indexing, contiguous() of a contiguous tensor).
std::string Operand(int32_t v, std::mt19937& rng) {
  const std::string name = v < 0 ? "x" : "v" + std::to_string(v);
  switch (rng() % 6) {
    case 0: return name + ".view([-1]).view([2, 3])";
    case 1: return name + ".unsqueeze(0).squeeze(0)";
    case 2: return name + ".t().t()";
    case 3: return "torch.chunk(" + name + ", 1, 0)[0]";
    case 4: return name + ".contiguous().reshape([3, 2]).reshape([2, 3])";
    default: return name;
  }
}

// One aten op per DAG node; distinct constants keep common-subexpression elimination away.
std::string Source(const RandomDag& dag, std::mt19937& rng) {
  std::string code = "def forward(self, x):\n";
  std::vector<bool> consumed(dag.operands.size(), false);
  for (size_t k = 0; k < dag.operands.size(); ++k) {
    std::vector<std::string> in;
    for (const int32_t v : dag.operands[k]) {
      in.push_back(Operand(v, rng));
      if (v >= 0) consumed[static_cast<size_t>(v)] = true;
    }
    const std::string c = std::to_string(k + 2);
    std::string expr;
    if (in.size() == 1) expr = "torch.add(" + in[0] + ", " + c + ".5)";
    if (in.size() == 2) expr = "torch.add(" + in[0] + ", " + in[1] + ", alpha=" + c + ")";
    if (in.size() == 3) expr = "torch.addcmul(" + in[0] + ", " + in[1] + ", " + in[2] + ", value=" + c + ")";
    code += "    v" + std::to_string(k) + " = " + expr + "\n";
  }
  std::string outputs;
  for (size_t k = 0; k < consumed.size(); ++k) {
    if (!consumed[k]) outputs += (outputs.empty() ? "" : ", ") + ("v" + std::to_string(k));
  }
  return code + "    return (" + outputs + ",)\n";
}

TEST(RandomDagTest, ExtractedGraphIsTheDagThatWasWritten) {
  for (uint32_t seed = 1; seed <= 25; ++seed) {
    std::mt19937 rng(seed);
    const RandomDag dag = MakeDag(rng, 2 + static_cast<int32_t>(rng() % 11));
    const std::string source = Source(dag, rng);
    SCOPED_TRACE("seed " + std::to_string(seed) + ":\n" + source);
    StatusOr<ModelGraph> model = LoadModelGraph(SaveModelFromSource(source, {}), {{2, 3}});
    ASSERT_TRUE(model.ok()) << model.status().ToString();
    EdgeSet expected;
    for (size_t k = 0; k < dag.operands.size(); ++k) {
      for (const int32_t v : dag.operands[k]) {
        if (v >= 0) expected.insert({v, static_cast<int32_t>(k), EdgeKind::kData});
      }
    }
    ASSERT_EQ(model->graph.ops.size(), dag.operands.size());
    EXPECT_EQ(Edges(model->graph), expected);
    for (const Op& op : model->graph.ops) EXPECT_EQ(op.output_shapes, "[2,3]") << op.name;
  }
}

}  // namespace
}  // namespace nimble::testing
