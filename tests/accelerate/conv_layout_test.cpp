// The front end's memory format (FrontEndOptions::memory_format): which convolutions "auto" puts in
// channels_last, what the graph gains (one conversion of the input), and that the values stay those
// of the contiguous graph.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "nimble/accelerate/model_graph.h"
#include "nimble/accelerate/model_timing.h"
#include "test_models.h"

namespace nimble::testing {

using namespace ::nimble::accelerate;  // NOLINT: the module under test
namespace {

// Two 3x3 convolutions side by side on one input, their weights cast to `dtype` in forward (a
// constant once frozen); `groups` 3 makes the first depthwise.
std::string TwoConvolutions(DType dtype, int groups) {
  // c10::ScalarType's numbers: TorchScript source compiled here has no torch.bfloat16 to name.
  const std::string cast = std::string(".to(") + (dtype == DType::kBFloat16 ? "15" : "6") + ")";
  return SaveModelFromSource(
      "def forward(self, x):\n"
      "    a = torch.conv2d(x, self.w0" + cast + ", None, [1, 1], [1, 1], [1, 1], " + std::to_string(groups) + ")\n"
      "    b = torch.conv2d(x, self.w1" + cast + ", None, [1, 1], [1, 1], [1, 1], 1)\n"
      "    return torch.relu(a) + b\n",
      {{3, groups == 1 ? 3 : 1, 3, 3}, {3, 3, 3, 3}});
}

std::vector<TensorSpec> Image(DType dtype) { return {TensorSpec{.shape = {1, 3, 8, 8}, .dtype = dtype}}; }

ModelGraph Load(const std::string& path, DType dtype, MemoryFormat format) {
  StatusOr<ModelGraph> model = LoadModelGraph(path, Image(dtype), FrontEndOptions{.memory_format = format});
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  return model.ok() ? std::move(model).value() : ModelGraph{};
}

std::vector<std::string> Kinds(const OpGraph& graph) {
  std::vector<std::string> kinds;
  for (const Op& op : graph.ops) kinds.push_back(op.kind);
  return kinds;
}

// The largest relative difference between the two graphs' outputs on one random input.
double Difference(const ModelGraph& a, const ModelGraph& b, DType dtype) {
  HostTensor input = HostTensor::Random({1, 3, 8, 8}, 7);
  input.dtype = dtype;
  StatusOr<std::vector<HostTensor>> out_a = RunOnce(a.model, {input});
  StatusOr<std::vector<HostTensor>> out_b = RunOnce(b.model, {input});
  EXPECT_TRUE(out_a.ok() && out_b.ok());
  if (!out_a.ok() || !out_b.ok()) return 1.0;
  StatusOr<double> error = MaxRelativeError(*out_a, *out_b);
  EXPECT_TRUE(error.ok()) << error.status().ToString();
  return error.ok() ? *error : 1.0;
}

TEST(ConvLayoutTest, HalfPrecisionConvolutionsGoChannelsLastByDefault) {
  const std::string path = TwoConvolutions(DType::kBFloat16, 1);
  const ModelGraph automatic = Load(path, DType::kBFloat16, MemoryFormat::kAuto);
  const ModelGraph contiguous = Load(path, DType::kBFloat16, MemoryFormat::kContiguous);
  EXPECT_TRUE(automatic.channels_last);
  EXPECT_FALSE(contiguous.channels_last);
  // One op more: the input converted once, ahead of both convolutions.
  ASSERT_EQ(automatic.graph.ops.size(), contiguous.graph.ops.size() + 1);
  EXPECT_EQ(Kinds(automatic.graph).front(), "aten::contiguous");
  EXPECT_NE(Kinds(contiguous.graph).front(), "aten::contiguous");
  EXPECT_LE(Difference(automatic, contiguous, DType::kBFloat16), 1e-2);
}

TEST(ConvLayoutTest, DepthwiseOrFloat32ConvolutionsStayContiguousUnlessAsked) {
  const std::string depthwise = TwoConvolutions(DType::kBFloat16, 3);
  const ModelGraph open = Load(depthwise, DType::kBFloat16, MemoryFormat::kAuto);
  EXPECT_FALSE(open.channels_last);
  // Half precision with a depthwise convolution: left to nimble-accelerate to measure, but only under auto.
  EXPECT_TRUE(open.layout_open);
  EXPECT_FALSE(Load(depthwise, DType::kBFloat16, MemoryFormat::kContiguous).layout_open);
  EXPECT_FALSE(Load(depthwise, DType::kBFloat16, MemoryFormat::kChannelsLast).layout_open);
  EXPECT_FALSE(Load(TwoConvolutions(DType::kBFloat16, 1), DType::kBFloat16, MemoryFormat::kAuto).layout_open);
  const std::string path = TwoConvolutions(DType::kFloat32, 1);
  const ModelGraph automatic = Load(path, DType::kFloat32, MemoryFormat::kAuto);
  EXPECT_FALSE(automatic.channels_last);
  EXPECT_FALSE(automatic.layout_open);
  EXPECT_FALSE(Load(TwoConvolutions(DType::kFloat32, 3), DType::kFloat32, MemoryFormat::kAuto).layout_open);
  const ModelGraph forced = Load(path, DType::kFloat32, MemoryFormat::kChannelsLast);
  EXPECT_TRUE(forced.channels_last);
  EXPECT_EQ(Kinds(forced.graph).front(), "aten::contiguous");
  EXPECT_LE(Difference(forced, automatic, DType::kFloat32), 1e-5);
}

// The frozen weights are counted by precision (what picks the device's sharing model): the casts in
// forward fold into half-precision constants, and the float32 originals are gone.
TEST(ConvLayoutTest, TheFrozenWeightsAreCountedByPrecision) {
  const ModelGraph half = Load(TwoConvolutions(DType::kBFloat16, 1), DType::kBFloat16, MemoryFormat::kContiguous);
  EXPECT_EQ(half.half_weights, 2 * 3 * 3 * 3 * 3);
  EXPECT_EQ(half.float32_weights, 0);
  const ModelGraph full = Load(TwoConvolutions(DType::kFloat32, 3), DType::kFloat32, MemoryFormat::kAuto);
  EXPECT_EQ(full.float32_weights, 3 * 1 * 3 * 3 + 3 * 3 * 3 * 3);
  EXPECT_EQ(full.half_weights, 0);
}

// A recurrent layer's weights, handed to it as a list, count too.
TEST(ConvLayoutTest, WeightsInAListAreCounted) {
  const std::string path = SaveModelFromSource(
      "def forward(self, x):\n"
      "    h = torch.zeros([1, 1, 4])\n"
      "    c = torch.zeros([1, 1, 4])\n"
      "    out, hn, cn = torch.lstm(x, [h, c], [self.w0, self.w1, self.w2, self.w3], True, 1, 0.0, False, False, True)\n"
      "    return out\n",
      {{16, 3}, {16, 4}, {16}, {16}});
  StatusOr<ModelGraph> model = LoadModelGraph(path, {TensorSpec{.shape = {1, 5, 3}, .dtype = DType::kFloat32}});
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_GE(model->float32_weights, 16 * 3 + 16 * 4 + 16 + 16);
  EXPECT_EQ(model->half_weights, 0);
}

// The converted weights carry channels_last strides in the graph itself (what model.nimble saves).
TEST(ConvLayoutTest, WeightsAreStoredChannelsLast) {
  const std::string path = TwoConvolutions(DType::kBFloat16, 1);
  const std::string nhwc = Load(path, DType::kBFloat16, MemoryFormat::kAuto).model.GraphText();
  const std::string nchw = Load(path, DType::kBFloat16, MemoryFormat::kContiguous).model.GraphText();
  EXPECT_NE(nhwc.find("strides=[27, 1, 9, 3]"), std::string::npos) << nhwc;
  EXPECT_EQ(nchw.find("strides=[27, 1, 9, 3]"), std::string::npos) << nchw;
  EXPECT_NE(nchw.find("strides=[27, 9, 3, 1]"), std::string::npos) << nchw;
}

// A view that needs the NCHW strides after a convolution: "auto" falls back to the file's layout, and
// a forced channels_last says what to do.
TEST(ConvLayoutTest, AViewThatNeedsNchwStridesFallsBackUnderAuto) {
  const std::string path = SaveModelFromSource(R"(
def forward(self, x):
    a = torch.conv2d(x, self.w0.to(15), None, [1, 1], [1, 1], [1, 1], 1)
    return a.view(1, -1)
)", {{3, 3, 3, 3}});
  const ModelGraph automatic = Load(path, DType::kBFloat16, MemoryFormat::kAuto);
  EXPECT_FALSE(automatic.channels_last);
  EXPECT_FALSE(automatic.graph.ops.empty());
  StatusOr<ModelGraph> forced = LoadModelGraph(path, Image(DType::kBFloat16),
                                               FrontEndOptions{.memory_format = MemoryFormat::kChannelsLast});
  ASSERT_FALSE(forced.ok());
  EXPECT_NE(forced.status().message().find("--memory-format contiguous"), std::string::npos)
      << forced.status().message();
}

// Only inputs that reach a convolution are converted, and a weight another op also reads keeps its
// layout there (the convolution gets a channels_last copy).
TEST(ConvLayoutTest, OtherInputsAndOtherReadersOfAWeightKeepTheirLayout) {
  const std::string path = SaveModelFromSource(R"(
def forward(self, x, m):
    w = self.w0.to(15)
    a = torch.conv2d(x, w, None, [1, 1], [1, 1], [1, 1], 1)
    return a.sum() + m.view(1, -1).sum() + w.view(1, -1).sum()
)", {{3, 3, 3, 3}});
  const std::vector<TensorSpec> specs = {TensorSpec{.shape = {1, 3, 8, 8}, .dtype = DType::kBFloat16},
                                         TensorSpec{.shape = {1, 3, 8, 8}, .dtype = DType::kBFloat16}};
  StatusOr<ModelGraph> model = LoadModelGraph(path, specs);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_TRUE(model->channels_last);
  int conversions = 0;
  for (const Op& op : model->graph.ops) conversions += op.kind == "aten::contiguous" ? 1 : 0;
  EXPECT_EQ(conversions, 1);
}

// Forced channels_last on weights that are channels_last already (1x1 kernels): reported as such.
TEST(ConvLayoutTest, PointwiseConvolutionsAreChannelsLastAlready) {
  const std::string path = SaveModelFromSource(R"(
def forward(self, x):
    return torch.conv2d(x, self.w0, None, [1, 1], [0, 0], [1, 1], 1)
)", {{4, 3, 1, 1}});
  const ModelGraph model = Load(path, DType::kFloat32, MemoryFormat::kChannelsLast);
  EXPECT_TRUE(model.channels_last);
  EXPECT_EQ(Kinds(model.graph).front(), "aten::contiguous");
}

TEST(ConvLayoutTest, ModelsWithoutConvolutionsAreLeftAlone) {
  StatusOr<ModelGraph> model = LoadModelGraph(SaveTestModel(TestModel::kTwoInputs), {{2, 3}, {2, 3}},
                                               FrontEndOptions{.memory_format = MemoryFormat::kChannelsLast});
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_FALSE(model->channels_last);
  EXPECT_EQ(Kinds(model->graph), (std::vector<std::string>{"aten::relu", "aten::sigmoid", "aten::add"}));
}

TEST(ConvLayoutTest, NamesParseBack) {
  for (MemoryFormat format : {MemoryFormat::kAuto, MemoryFormat::kContiguous, MemoryFormat::kChannelsLast}) {
    EXPECT_EQ(ParseMemoryFormat(MemoryFormatName(format)), format);
  }
  EXPECT_EQ(ParseMemoryFormat("nhwc"), std::nullopt);
}

}  // namespace
}  // namespace nimble::testing
