// Op graphs extracted from small models built by the test: op counts and kinds, exact edge sets,
// folded plumbing, output shapes, and width and critical path against brute force.
#include "nimble/accelerate/model_graph.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>

#include <set>

#include "dag_brute_force.h"
#include "nimble/analysis/concurrency.h"
#include "nimble/analysis/dag.h"
#include "test_models.h"

namespace nimble::testing {

using namespace ::nimble::accelerate;  // NOLINT: the module under test
namespace {

constexpr EdgeKind D = EdgeKind::kData;
constexpr EdgeKind O = EdgeKind::kOrder;
const std::vector<std::vector<int64_t>> kImage = {{1, 3, 8, 8}};

ModelGraph Load(TestModel model, const std::vector<std::vector<int64_t>>& shapes, bool optimize = true) {
  StatusOr<ModelGraph> graph = LoadModelGraph(SaveTestModel(model), shapes, FrontEndOptions{.optimize = optimize});
  EXPECT_TRUE(graph.ok()) << graph.status().ToString();
  return graph.ok() ? std::move(graph).value() : ModelGraph{};
}

ModelGraph LoadFile(const std::string& path, const std::vector<std::vector<int64_t>>& shapes) {
  StatusOr<ModelGraph> graph = LoadModelGraph(path, shapes);
  EXPECT_TRUE(graph.ok()) << graph.status().ToString();
  return graph.ok() ? std::move(graph).value() : ModelGraph{};
}

std::vector<std::string> Kinds(const OpGraph& graph) {
  std::vector<std::string> kinds;
  for (const Op& op : graph.ops) kinds.push_back(op.kind);
  return kinds;
}

std::vector<std::string> Shapes(const OpGraph& graph) {
  std::vector<std::string> shapes;
  for (const Op& op : graph.ops) shapes.push_back(op.output_shapes);
  return shapes;
}

// What every extracted graph promises: valid, topologically ordered, unique names, no plumbing.
void ExpectWellFormed(const ModelGraph& model) {
  const OpGraph& graph = model.graph;
  EXPECT_TRUE(graph.Validate().ok()) << graph.Validate().ToString();
  std::set<std::string> names;
  std::set<std::pair<int32_t, int32_t>> pairs;
  for (const Op& op : graph.ops) {
    EXPECT_TRUE(names.insert(op.name).second) << "duplicate name " << op.name;
    EXPECT_EQ(op.name.rfind(op.kind + "#" + std::to_string(op.id.value()), 0), 0u) << op.name;
    EXPECT_FALSE(op.kind.starts_with("prim::")) << op.name;
    EXPECT_FALSE(op.output_shapes.empty()) << op.name;
  }
  for (const OpEdge& e : graph.edges) {
    EXPECT_LT(e.src, e.dst) << "edge against op order";
    EXPECT_TRUE(pairs.insert({e.src.value(), e.dst.value()}).second) << "duplicate edge";
  }
  EXPECT_GE(model.graph_nodes, static_cast<int32_t>(graph.ops.size()));
}

TEST(ModelGraphTest, ChainHasThreeOpsInARow) {
  const ModelGraph model = Load(TestModel::kChain, kImage);
  ExpectWellFormed(model);
  EXPECT_EQ(Kinds(model.graph), (std::vector<std::string>{"aten::conv2d", "aten::relu", "aten::matmul"}));
  EXPECT_EQ(Shapes(model.graph), (std::vector<std::string>{"[1,4,8,8]", "[1,4,8,8]", "[1,10]"}));
  EXPECT_EQ(Edges(model.graph), (EdgeSet{{0, 1, D}, {1, 2, D}}));
  EXPECT_EQ(BruteForceWidth(model.graph), 1);
  EXPECT_EQ(BruteForceCriticalPathOps(model.graph), 3);
  // The view between relu and matmul, the constants and the list of view sizes are folded.
  EXPECT_GT(model.graph_nodes, 3);
}

TEST(ModelGraphTest, ForkJoinHasThreeParallelBranches) {
  for (const bool optimize : {true, false}) {
    SCOPED_TRACE(optimize ? "optimized" : "not optimized");
    const ModelGraph model = Load(TestModel::kForkJoin, kImage, optimize);
    ExpectWellFormed(model);
    EXPECT_EQ(Kinds(model.graph), (std::vector<std::string>{"aten::conv2d", "aten::conv2d", "aten::relu", "aten::sigmoid",
                                                            "aten::max_pool2d", "aten::cat", "aten::tanh"}));
    EXPECT_EQ(Edges(model.graph), (EdgeSet{{0, 1, D}, {1, 2, D}, {0, 3, D}, {0, 4, D},
                                           {2, 5, D}, {3, 5, D}, {4, 5, D}, {5, 6, D}}));
    EXPECT_EQ(model.graph.ops[4].output_shapes, "[1,8,8,8]");
    EXPECT_EQ(model.graph.ops[5].output_shapes, "[1,24,8,8]");
    EXPECT_EQ(BruteForceWidth(model.graph), 3);
    EXPECT_EQ(BruteForceCriticalPathOps(model.graph), 5);
    StatusOr<analysis::Dag> dag = analysis::Dag::FromOpGraph(model.graph);
    ASSERT_TRUE(dag.ok()) << dag.status().ToString();
    EXPECT_EQ(analysis::ComputeConcurrency(*dag).width, 3);
  }
}

TEST(ModelGraphTest, InPlaceAddIsOrderedAfterReadersAndBeforeLaterUses) {
  const ModelGraph model = Load(TestModel::kInPlaceResidual, kImage);
  ExpectWellFormed(model);
  ASSERT_EQ(Kinds(model.graph),
            (std::vector<std::string>{"aten::conv2d", "aten::relu", "aten::sigmoid", "aten::add_", "aten::add"}));
  // relu reads y before add_ overwrites it (1->3), and the final add reads y after (3->4): neither
  // is a data edge in the graph, which passes the pre-add_ value of y to both.
  EXPECT_EQ(Edges(model.graph), (EdgeSet{{0, 1, D}, {0, 3, D}, {2, 3, D}, {0, 4, D}, {1, 4, D},
                                         {1, 3, O}, {3, 4, O}}));
  EXPECT_EQ(BruteForceWidth(model.graph), 2);
  EXPECT_EQ(BruteForceCriticalPathOps(model.graph), 4);
}

TEST(ModelGraphTest, InPlaceWriteWaitsForAReadThroughAList) {
  const ModelGraph model = Load(TestModel::kInPlaceAfterCat, {{2, 3}});
  ExpectWellFormed(model);
  ASSERT_EQ(Kinds(model.graph),
            (std::vector<std::string>{"aten::relu", "aten::cat", "aten::mul_", "aten::cat", "aten::add"}));
  // The first cat reads `a` inside a list; mul_ must not overwrite `a` before it (1->2). The second
  // cat reads `a` again, after mul_ (2->3), through the same kind of list.
  EXPECT_EQ(Edges(model.graph), (EdgeSet{{0, 1, D}, {0, 2, D}, {1, 2, O}, {0, 3, D}, {2, 3, O},
                                         {1, 4, D}, {3, 4, D}}));
}

TEST(ModelGraphTest, ViewsSizesDropoutAndListsAreFoldedButCopiesAreNot) {
  const ModelGraph model = Load(TestModel::kFoldedPlumbing, {{2, 3, 4}});
  ExpectWellFormed(model);
  // contiguous() of a transposed tensor copies, so it is an op; reshape of its contiguous result,
  // flatten of a contiguous tensor and dropout in eval mode return views and are folded.
  EXPECT_EQ(Kinds(model.graph),
            (std::vector<std::string>{"aten::relu", "aten::contiguous", "aten::sigmoid", "aten::tanh"}));
  EXPECT_EQ(Shapes(model.graph), (std::vector<std::string>{"[2,3,4]", "[12,2]", "[2,6]", "[24]"}));
  EXPECT_EQ(Edges(model.graph), (EdgeSet{{0, 1, D}, {0, 2, D}, {1, 3, D}}));
}

TEST(ModelGraphTest, ArithmeticOnSizesIsHostWorkNotOps) {
  const ModelGraph model = Load(TestModel::kHostShapeMath, {{1, 2, 7, 5}});
  ExpectWellFormed(model);
  // scalar_tensor, div, ceil, sub and clamp make 0-dim tensors from y.size(2): folded; the pad that uses
  // their result waits only for relu, whose output it pads (by ceil(7 / 3) - 1 = 2 on each side).
  EXPECT_EQ(Kinds(model.graph),
            (std::vector<std::string>{"aten::relu", "aten::constant_pad_nd", "aten::sigmoid"}));
  EXPECT_EQ(Shapes(model.graph), (std::vector<std::string>{"[1,2,7,5]", "[1,2,7,9]", "[1,2,7,9]"}));
  EXPECT_EQ(Edges(model.graph), (EdgeSet{{0, 1, D}, {1, 2, D}}));
}

// The graph is specialized to its input shapes: y.size(2) becomes a constant, and the arithmetic on
// it folds away, so no host read (aten::Int) is left to run. Other input shapes give other paddings.
TEST(ModelGraphTest, ShapeQueriesBecomeConstantsOfTheGivenShapes) {
  const ModelGraph model = Load(TestModel::kHostShapeMath, {{1, 2, 7, 5}});
  EXPECT_EQ(model.folded_shape_queries, 1);
  const std::string text = model.model.GraphText();
  for (const char* kind : {"aten::size", "aten::Int", "aten::ceil", "aten::clamp", "aten::scalar_tensor"}) {
    EXPECT_EQ(text.find(kind), std::string::npos) << kind << " left in\n" << text;
  }
  const ModelGraph taller = Load(TestModel::kHostShapeMath, {{1, 2, 13, 5}});
  EXPECT_EQ(Shapes(taller.graph), (std::vector<std::string>{"[1,2,13,5]", "[1,2,13,13]", "[1,2,13,13]"}));
  EXPECT_EQ(Load(TestModel::kChain, kImage).folded_shape_queries, 0);
}

// The module as profiled can be written out and read back as TorchScript: the same ops, the shape
// arithmetic still folded. An unwritable place is an error naming it, with nothing left behind.
TEST(ModelGraphTest, SavedModuleLoadsBackAsTheSameGraph) {
  const ModelGraph model = Load(TestModel::kHostShapeMath, {{1, 2, 7, 5}});
  const std::string path = TestDir() + "/profiled.pt";
  ASSERT_TRUE(model.model.Save(path).ok());
  const ModelGraph again = LoadFile(path, {{1, 2, 7, 5}});
  EXPECT_EQ(Kinds(again.graph), Kinds(model.graph));
  EXPECT_EQ(Shapes(again.graph), Shapes(model.graph));
  EXPECT_EQ(again.folded_shape_queries, 0);
  const Status bad = model.model.Save("/nonexistent/dir/profiled.pt");
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("/nonexistent/dir/profiled.pt"), std::string::npos) << bad.message();
  EXPECT_FALSE(std::filesystem::exists("/nonexistent/dir/profiled.pt.partial"));
}

TEST(ModelGraphTest, OptimizeFoldsBatchNormIntoConv) {
  const ModelGraph optimized = Load(TestModel::kConvBatchNorm, kImage, true);
  ExpectWellFormed(optimized);
  // The folded bias and the relu then run as one epilogue (conv_epilogue_test.cpp).
  EXPECT_EQ(Kinds(optimized.graph), (std::vector<std::string>{"aten::conv2d", "nimble::conv_epilogue_"}));
  StatusOr<ModelGraph> separate = LoadModelGraph(SaveTestModel(TestModel::kConvBatchNorm), kImage,
                                                 {.optimize = true, .conv_epilogues = false});
  ASSERT_TRUE(separate.ok()) << separate.status().ToString();
  EXPECT_EQ(Kinds(separate->graph), (std::vector<std::string>{"aten::conv2d", "aten::relu"}));
  const ModelGraph plain = Load(TestModel::kConvBatchNorm, kImage, false);
  ExpectWellFormed(plain);
  EXPECT_EQ(Kinds(plain.graph), (std::vector<std::string>{"aten::conv2d", "aten::batch_norm", "aten::relu"}));
  EXPECT_EQ(Edges(plain.graph), (EdgeSet{{0, 1, D}, {1, 2, D}}));
}

TEST(ModelGraphTest, TwoInputsGiveTwoIndependentOps) {
  const ModelGraph model = Load(TestModel::kTwoInputs, {{2, 3}, {2, 3}});
  ExpectWellFormed(model);
  EXPECT_EQ(Kinds(model.graph), (std::vector<std::string>{"aten::relu", "aten::sigmoid", "aten::add"}));
  EXPECT_EQ(Edges(model.graph), (EdgeSet{{0, 2, D}, {1, 2, D}}));
  EXPECT_EQ(BruteForceWidth(model.graph), 2);
}

TEST(ModelGraphTest, CudaGraphMatchesCpuGraphUnlessConvAndReluFuse) {
  const std::string path = SaveTestModel(TestModel::kChain);
  StatusOr<ModelGraph> plain = LoadModelGraph(path, kImage, {.optimize = false, .device = "cuda"});
  if (!plain.ok() && plain.status().code() == StatusCode::kUnavailable) GTEST_SKIP() << "no GPU here";
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_EQ(plain->model.device(), "cuda");
  EXPECT_EQ(Kinds(plain->graph), (std::vector<std::string>{"aten::conv2d", "aten::relu", "aten::matmul"}));
  EXPECT_EQ(Shapes(plain->graph), (std::vector<std::string>{"[1,4,8,8]", "[1,4,8,8]", "[1,10]"}));
  // Optimizing keeps conv2d and relu apart unless asked (the fusion was slower in fp32 without TF32)...
  StatusOr<ModelGraph> optimized = LoadModelGraph(path, kImage, {.optimize = true, .device = "cuda"});
  ASSERT_TRUE(optimized.ok()) << optimized.status().ToString();
  EXPECT_EQ(Kinds(optimized->graph), (std::vector<std::string>{"aten::conv2d", "aten::relu", "aten::matmul"}));
  // ... and with cuda_fusions on CUDA fuses them into one cuDNN call.
  StatusOr<ModelGraph> fused = LoadModelGraph(path, kImage, {.optimize = true, .cuda_fusions = true, .device = "cuda"});
  ASSERT_TRUE(fused.ok()) << fused.status().ToString();
  EXPECT_EQ(Kinds(fused->graph), (std::vector<std::string>{"aten::cudnn_convolution_relu", "aten::matmul"}));
  EXPECT_EQ(Edges(fused->graph), (EdgeSet{{0, 1, D}}));
}

TEST(ModelGraphTest, HandleKeepsTheFrozenModelAndMapsOpsToNodes) {
  const std::string path = SaveTestModel(TestModel::kChain);
  StatusOr<ModelGraph> model = LoadModelGraph(path, kImage);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const LoadedModel& handle = model->model;
  ASSERT_FALSE(handle.empty());
  EXPECT_EQ(handle.path(), path);
  EXPECT_EQ(handle.device(), "cpu");
  EXPECT_EQ(SpecShapes(handle.inputs()), kImage);
  EXPECT_NE(handle.GraphText().find("aten::conv2d"), std::string::npos) << handle.GraphText();
  StatusOr<std::string> node = handle.NodeText(OpId(2));
  ASSERT_TRUE(node.ok()) << node.status().ToString();
  EXPECT_NE(node->find("aten::matmul"), std::string::npos) << *node;
  EXPECT_EQ(handle.NodeText(OpId(3)).status().code(), StatusCode::kOutOfRange);
}

}  // namespace
}  // namespace nimble::testing

namespace nimble::testing {
namespace {

// The value of the last argument of `op`'s node (a bool constant), read from the graph's text.
std::optional<bool> LastBoolArgument(const ModelGraph& model, OpId op) {
  StatusOr<std::string> node = model.model.NodeText(op);
  if (!node.ok()) return std::nullopt;
  const size_t close = node->rfind(')');
  const size_t comma = node->rfind(',', close);
  if (close == std::string::npos || comma == std::string::npos) return std::nullopt;
  std::string name = node->substr(comma + 1, close - comma - 1);
  name.erase(0, name.find_first_not_of(' '));
  const std::string text = model.model.GraphText();
  for (const char* value : {"0", "1"}) {
    if (text.find(name + " : bool = prim::Constant[value=" + value + "]") != std::string::npos) return value[0] == '1';
  }
  return std::nullopt;
}

}  // namespace

// A traced convolution carries the tracing process's TF32 flag as a constant, which would override
// the precision a run asks for; the front end sets it to what was asked.
TEST(ModelGraphTest, TracedConvolutionTakesThePrecisionAskedFor) {
  for (bool traced_with : {false, true}) {
    const std::string path = SaveModelFromSource(std::string(R"(
def forward(self, x):
    return torch._convolution(x, self.w0, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1, False, False, True, )") +
                                                     (traced_with ? "True" : "False") + ")\n",
                                                 {{4, 3, 3, 3}});
    for (bool tf32 : {false, true}) {
      StatusOr<ModelGraph> model = LoadModelGraph(path, kImage, FrontEndOptions{.tf32 = tf32});
      ASSERT_TRUE(model.ok()) << model.status().ToString();
      ASSERT_EQ(Kinds(model->graph), (std::vector<std::string>{"aten::_convolution"}));
      EXPECT_EQ(LastBoolArgument(*model, OpId(0)), std::optional<bool>(tf32)) << "traced with " << traced_with;
    }
  }
}

}  // namespace nimble::testing
