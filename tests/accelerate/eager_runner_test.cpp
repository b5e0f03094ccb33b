// The eager runner on small models built by the tests: brackets come once per op, in op order, never
// nested, and together cover every graph node; the node-by-node run computes what forward computes;
// iterations repeat. On the CPU here, and on the GPU where there is one.
#include "nimble/accelerate/eager_runner.h"

#include <gtest/gtest.h>

#include <numeric>

#include "nimble/accelerate/cuda_devices.h"
#include "test_models.h"

namespace nimble::testing {

using namespace ::nimble::accelerate;  // NOLINT: the module under test
namespace {

using Shapes = std::vector<std::vector<int64_t>>;

// Records the bracket calls and fails the test at the first that breaks the observer's contract.
class CheckingObserver : public OpObserver {
 public:
  void OnOpBegin(OpId op) override {
    EXPECT_FALSE(open_.valid()) << "op " << op.value() << " begins inside op " << open_.value();
    open_ = op;
    begun.push_back(op.value());
  }
  void OnOpEnd(OpId op) override {
    EXPECT_EQ(open_, op) << "op " << op.value() << " ends but op " << open_.value() << " is open";
    open_ = OpId();
    ++ended;
  }
  bool closed() const { return !open_.valid(); }
  std::vector<int32_t> begun;
  int32_t ended = 0;

 private:
  OpId open_;
};

struct Case {
  TestModel model;
  Shapes shapes;
};

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
      {TestModel::kChain, {{1, 3, 8, 8}}},          {TestModel::kForkJoin, {{1, 3, 8, 8}}},
      {TestModel::kInPlaceResidual, {{1, 3, 8, 8}}}, {TestModel::kInPlaceAfterCat, {{2, 3}}},
      {TestModel::kFoldedPlumbing, {{2, 3, 4}}},     {TestModel::kHostShapeMath, {{1, 2, 7, 5}}},
      {TestModel::kConvBatchNorm, {{1, 3, 8, 8}}},   {TestModel::kTwoInputs, {{2, 3}, {2, 3}}},
      {TestModel::kConstantLoop, {{1, 3, 8, 8}}},
  };
  return cases;
}

ModelGraph Load(const Case& c, const std::string& device) {
  auto graph = LoadModelGraph(SaveTestModel(c.model), c.shapes, FrontEndOptions{.device = device});
  EXPECT_TRUE(graph.ok()) << graph.status().ToString();
  return graph.ok() ? std::move(graph).value() : ModelGraph{};
}

// Every op bracketed once per iteration, in op order; all nodes covered; outputs equal forward's.
void CheckModel(const Case& c, const std::string& device, double tolerance) {
  const ModelGraph model = Load(c, device);
  ASSERT_FALSE(model.graph.ops.empty());
  auto runner = EagerRunner::Create(model);
  ASSERT_TRUE(runner.ok()) << runner.status().ToString();
  const auto n = static_cast<int32_t>(model.graph.ops.size());
  EXPECT_EQ((*runner)->num_ops(), n);
  const std::vector<int32_t>& nodes = (*runner)->nodes_per_op();
  EXPECT_EQ(std::accumulate(nodes.begin(), nodes.end(), 0), model.graph_nodes);
  for (int32_t count : nodes) EXPECT_GE(count, 1);
  std::vector<int32_t> in_order(static_cast<size_t>(n));
  std::iota(in_order.begin(), in_order.end(), 0);
  for (int iteration = 0; iteration < 3; ++iteration) {
    CheckingObserver observer;
    auto wall_ns = (*runner)->RunIteration(&observer);
    ASSERT_TRUE(wall_ns.ok()) << wall_ns.status().ToString();
    EXPECT_GT(*wall_ns, 0);
    EXPECT_EQ(observer.begun, in_order) << "iteration " << iteration;
    EXPECT_EQ(observer.ended, n);
    EXPECT_TRUE(observer.closed());
  }
  auto diff = (*runner)->MaxDifferenceFromForward();
  ASSERT_TRUE(diff.ok()) << diff.status().ToString();
  EXPECT_LE(*diff, tolerance);
}

TEST(EagerRunnerTest, BracketsEveryOpOnceInOrderAndMatchesForwardOnCpu) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(static_cast<int>(c.model));
    CheckModel(c, "cpu", 1e-5);
  }
}

TEST(EagerRunnerTest, BracketsEveryOpOnceInOrderAndMatchesForwardOnGpu) {
  if (CudaDeviceCount() == 0) GTEST_SKIP() << "no CUDA device";
  for (const Case& c : Cases()) {
    SCOPED_TRACE(static_cast<int>(c.model));
    CheckModel(c, "cuda", 1e-4);
  }
}

TEST(EagerRunnerTest, FoldedNodesRideWithTheNextOp) {
  // Plumbing ahead of an op runs in its bracket; the output tuple after the last op in the last one's.
  const ModelGraph model = Load(Cases()[4], "cpu");
  auto runner = EagerRunner::Create(model);
  ASSERT_TRUE(runner.ok()) << runner.status().ToString();
  const std::vector<int32_t>& nodes = (*runner)->nodes_per_op();
  EXPECT_GT(model.graph_nodes, static_cast<int32_t>(model.graph.ops.size()));
  EXPECT_GT(*std::max_element(nodes.begin(), nodes.end()), 1);
}

TEST(EagerRunnerTest, WorksWithoutObserver) {
  auto runner = EagerRunner::Create(Load(Cases()[0], "cpu"));
  ASSERT_TRUE(runner.ok()) << runner.status().ToString();
  EXPECT_TRUE((*runner)->RunIteration(nullptr).ok());
}

TEST(EagerRunnerTest, ComparingBeforeAnyIterationIsAnError) {
  auto runner = EagerRunner::Create(Load(Cases()[0], "cpu"));
  ASSERT_TRUE(runner.ok()) << runner.status().ToString();
  const Status status = (*runner)->MaxDifferenceFromForward().status();
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition) << status.ToString();
  EXPECT_NE(status.message().find("no eager iteration"), std::string::npos) << status.message();
}

TEST(EagerRunnerTest, EmptyModelIsRefused) {
  const Status status = EagerRunner::Create(ModelGraph{}).status();
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition) << status.ToString();
}

TEST(CudaDevicesTest, NamesOnlyCudaDevicesThatExist) {
  EXPECT_EQ(CudaDeviceName("cpu").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(CudaDeviceName("tpu:3").status().code(), StatusCode::kInvalidArgument);
  const int count = CudaDeviceCount();
  EXPECT_GE(count, 0);
  const Status beyond = CudaDeviceName("cuda:" + std::to_string(count)).status();
  EXPECT_EQ(beyond.code(), StatusCode::kUnavailable) << beyond.ToString();
  if (count > 0) {
    auto name = CudaDeviceName("cuda");
    ASSERT_TRUE(name.ok()) << name.status().ToString();
    EXPECT_FALSE(name->empty());
  }
}

}  // namespace
}  // namespace nimble::testing
