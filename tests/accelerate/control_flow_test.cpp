// Control flow: branches and loops that depend on data cannot be scheduled ahead of time and are
// refused with the node named; those that freezing makes constant are folded or unrolled.
#include <gtest/gtest.h>

#include "dag_brute_force.h"
#include "nimble/accelerate/model_graph.h"
#include "test_models.h"

namespace nimble::testing {

using namespace ::nimble::accelerate;  // NOLINT: the module under test
namespace {

std::vector<std::string> Kinds(const OpGraph& graph) {
  std::vector<std::string> kinds;
  for (const Op& op : graph.ops) kinds.push_back(op.kind);
  return kinds;
}

TEST(ControlFlowTest, BranchOnDataIsRefusedNamingTheNode) {
  const std::string path = SaveTestModel(TestModel::kDynamicIf);
  const Status status = LoadModelGraph(path, {{2, 3}}).status();
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(status.message().find(path), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("dynamic control flow at prim::If"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("cannot be scheduled ahead of time"), std::string::npos) << status.message();
}

TEST(ControlFlowTest, LoopWithDataDependentTripCountIsRefused) {
  const Status status = LoadModelGraph(SaveTestModel(TestModel::kDynamicLoop), {{2, 3}}).status();
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(status.message().find("dynamic control flow at prim::Loop"), std::string::npos) << status.message();
}

TEST(ControlFlowTest, BranchOnAnAttributeIsFoldedByFreezing) {
  StatusOr<ModelGraph> model = LoadModelGraph(SaveTestModel(TestModel::kConstantIf), {{2, 3}});
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_EQ(Kinds(model->graph), (std::vector<std::string>{"aten::relu", "aten::mul"}));
  EXPECT_EQ(Edges(model->graph), (EdgeSet{{0, 1, EdgeKind::kData}}));
}

TEST(ControlFlowTest, ConstantLoopIsUnrolled) {
  StatusOr<ModelGraph> model = LoadModelGraph(SaveTestModel(TestModel::kConstantLoop), {{2, 3}});
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_EQ(Kinds(model->graph), (std::vector<std::string>{"aten::relu", "aten::add", "aten::relu", "aten::add",
                                                           "aten::relu", "aten::add"}));
  EXPECT_EQ(model->graph.edges.size(), 5u);
  EXPECT_EQ(BruteForceCriticalPathOps(model->graph), 6);
}

}  // namespace
}  // namespace nimble::testing
