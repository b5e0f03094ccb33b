// A convolution's bias add, residual add and activation become one nimble::conv_epilogue_ where the
// front end optimizes, from TorchScript and from torch.export programs, with the same outputs (on the
// CPU the operator runs ATen's own kernels in the original order, so exactly the same); tails that
// are read elsewhere, scaled, broadcast or of another dtype are left alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "nimble/accelerate/model_graph.h"
#include "nimble/accelerate/model_timing.h"
#include "test_models.h"

namespace nimble::testing {

using namespace ::nimble::accelerate;  // NOLINT: the module under test
namespace {

constexpr const char* kEpilogue = "nimble::conv_epilogue_";
const std::vector<int64_t> kImage = {1, 8, 6, 6};

StatusOr<ModelGraph> Load(const std::string& path, bool epilogues, std::vector<int64_t> shape = kImage) {
  return LoadModelGraph(path, {shape}, FrontEndOptions{.conv_epilogues = epilogues});
}

int Count(const ModelGraph& model, const std::string& kind) {
  return static_cast<int>(std::count_if(model.graph.ops.begin(), model.graph.ops.end(),
                                        [&](const Op& op) { return op.kind == kind; }));
}

std::string Kinds(const ModelGraph& model) {
  std::string kinds;
  for (const Op& op : model.graph.ops) kinds += op.kind + " ";
  return kinds;
}

double Difference(const ModelGraph& a, const ModelGraph& b, const std::vector<int64_t>& shape = kImage) {
  const HostTensor input = HostTensor::Random(shape, 7);
  StatusOr<std::vector<HostTensor>> out_a = RunOnce(a.model, {input});
  StatusOr<std::vector<HostTensor>> out_b = RunOnce(b.model, {input});
  EXPECT_TRUE(out_a.ok() && out_b.ok()) << out_a.status().ToString() << out_b.status().ToString();
  if (!out_a.ok() || !out_b.ok()) return 1.0;
  StatusOr<double> error = MaxRelativeError(*out_a, *out_b);
  return error.ok() ? *error : 1.0;
}

// Parameters w0..w11: four 3x3 convolutions of 8 channels with biases, then a grouped one (groups 4).
std::string SaveTails() {
  return SaveModelFromSource(
      "def forward(self, x):\n"
      "    a = torch.relu(torch.conv2d(x, self.w0, self.w1, 1, 1))\n"
      "    b = torch.relu(torch.conv2d(a, self.w2, self.w3, 1, 1) + x)\n"
      "    c = torch.hardtanh(torch.conv2d(b, self.w4, self.w5, 1, 1), 0.0, 6.0)\n"
      "    d = torch.silu(torch.conv2d(c, self.w6, self.w7, 1, 1))\n"
      "    e = torch.relu(torch.conv2d(d, self.w8, self.w9, 1, 1, 1, 4) + c)\n"
      "    return e\n",
      {{8, 8, 3, 3}, {8}, {8, 8, 3, 3}, {8}, {8, 8, 3, 3}, {8}, {8, 8, 3, 3}, {8}, {8, 2, 3, 3}, {8}});
}

TEST(ConvEpilogueTest, EachTailBecomesOneOperatorWithTheSameOutput) {
  const std::string path = SaveTails();
  StatusOr<ModelGraph> fused = Load(path, true);
  StatusOr<ModelGraph> plain = Load(path, false);
  ASSERT_TRUE(fused.ok() && plain.ok()) << fused.status().ToString() << plain.status().ToString();
  EXPECT_EQ(fused->conv_epilogues, 5);
  EXPECT_EQ(plain->conv_epilogues, 0);
  std::vector<std::string> kinds;
  for (const Op& op : fused->graph.ops) kinds.push_back(op.kind);
  const std::vector<std::string> expected = {"aten::conv2d", kEpilogue, "aten::conv2d", kEpilogue, "aten::conv2d",
                                             kEpilogue,      "aten::conv2d", kEpilogue, "aten::conv2d", kEpilogue};
  EXPECT_EQ(kinds, expected);
  EXPECT_EQ(Count(*plain, kEpilogue), 0);
  EXPECT_EQ(Count(*plain, "aten::relu"), 3);
  EXPECT_EQ(Count(*plain, "aten::add"), 2);
  EXPECT_EQ(Difference(*fused, *plain), 0.0);
}

TEST(ConvEpilogueTest, TwoConvolutionsAddedTogetherGiveTheAddToOneOfThem) {
  // A bottleneck block with a downsampling shortcut: relu(conv(x) + downsample(x)), both operands
  // convolution outputs read only by the add. One epilogue takes the add; the other convolution keeps
  // its bias.
  const std::string path = SaveModelFromSource(
      "def forward(self, x):\n"
      "    a = torch.conv2d(x, self.w0, self.w1, 1, 1)\n"
      "    d = torch.conv2d(x, self.w2, self.w3, 1, 0)\n"
      "    return torch.relu(a + d)\n",
      {{8, 8, 3, 3}, {8}, {8, 8, 1, 1}, {8}});
  StatusOr<ModelGraph> fused = Load(path, true);
  StatusOr<ModelGraph> plain = Load(path, false);
  ASSERT_TRUE(fused.ok() && plain.ok()) << fused.status().ToString() << plain.status().ToString();
  EXPECT_EQ(fused->conv_epilogues, 1) << Kinds(*fused);
  EXPECT_EQ(Kinds(*fused), "aten::conv2d aten::conv2d nimble::conv_epilogue_ ");
  EXPECT_EQ(Difference(*fused, *plain), 0.0);
}

TEST(ConvEpilogueTest, InPlaceAddsAndActivationsAreFusedAndUnbatchedConvolutionsAreNot) {
  const std::vector<std::vector<int64_t>> params = {{8, 8, 3, 3}, {8}};
  // y += x then relu_, as traced code writes a residual block; then ReLU6 in place.
  const std::string in_place = SaveModelFromSource(
      "def forward(self, x):\n"
      "    y = torch.conv2d(x, self.w0, self.w1, 1, 1)\n"
      "    y += x\n"
      "    z = torch.relu_(y)\n"
      "    return torch.hardtanh_(torch.conv2d(z, self.w0, self.w1, 1, 1), 0.0, 6.0)\n",
      params);
  StatusOr<ModelGraph> fused = Load(in_place, true);
  StatusOr<ModelGraph> plain = Load(in_place, false);
  ASSERT_TRUE(fused.ok() && plain.ok()) << fused.status().ToString() << plain.status().ToString();
  EXPECT_EQ(Kinds(*fused), "aten::conv2d nimble::conv_epilogue_ aten::conv2d nimble::conv_epilogue_ ");
  EXPECT_EQ(Difference(*fused, *plain), 0.0);
  // An unbatched input (C, H, W): dim 1 of the output is its height, not its channels.
  const std::string unbatched = SaveModelFromSource(
      "def forward(self, x):\n    return torch.relu(torch.conv2d(x, self.w0, self.w1, 1, 1))\n", params);
  const std::vector<int64_t> image = {8, 8, 6};
  StatusOr<ModelGraph> alone = Load(unbatched, true, image);
  StatusOr<ModelGraph> alone_plain = Load(unbatched, false, image);
  ASSERT_TRUE(alone.ok() && alone_plain.ok()) << alone.status().ToString() << alone_plain.status().ToString();
  EXPECT_EQ(alone->conv_epilogues, 0) << Kinds(*alone);
  EXPECT_EQ(Difference(*alone, *alone_plain, image), 0.0);
}

TEST(ConvEpilogueTest, TailsReadElsewhereScaledOrBroadcastAreLeftAlone) {
  const std::vector<std::vector<int64_t>> params = {{8, 8, 3, 3}, {8}, {8, 1, 1}};
  const std::vector<std::string> bodies = {
      // the convolution's output has a second reader
      "    y = torch.conv2d(x, self.w0, self.w1, 1, 1)\n    return torch.relu(y) + y\n",
      // a residual add with alpha 2, then relu: the add stops the tail, and the bias alone saves nothing
      "    y = torch.conv2d(x, self.w0, self.w1, 1, 1)\n    return torch.relu(torch.add(y, x, alpha=2))\n",
      // a residual that broadcasts (8x1x1) is not taken; nothing follows it
      "    y = torch.conv2d(x, self.w0, self.w1, 1, 1)\n    return torch.relu(y + self.w2)\n",
      // a grouped convolution keeps its bias, so a lone relu after it is one kernel for one
      "    return torch.relu(torch.conv2d(x, self.w0[:, :2], self.w1, 1, 1, 1, 4))\n",
  };
  for (const std::string& body : bodies) {
    const std::string path = SaveModelFromSource("def forward(self, x):\n" + body, params);
    StatusOr<ModelGraph> model = Load(path, true);
    ASSERT_TRUE(model.ok()) << model.status().ToString();
    EXPECT_EQ(Count(*model, kEpilogue), 0) << body;
    EXPECT_EQ(model->conv_epilogues, 0) << body;
  }
}

TEST(ConvEpilogueTest, AResidualOfAnotherDtypeIsLeftToItsAddAndTheOtherTailsAreFused) {
  // A float16 residual: the add promotes, which the in-place epilogue cannot, so that tail keeps
  // ATen's kernels; the first convolution's bias and ReLU are still one epilogue.
  const std::string path = SaveModelFromSource(
      "def forward(self, x):\n"
      "    y = torch.relu(torch.conv2d(x, self.w0, self.w1, 1, 1))\n"
      "    return torch.relu(torch.conv2d(y, self.w0, self.w1, 1, 1) + x.half())\n",
      {{8, 8, 3, 3}, {8}});
  StatusOr<ModelGraph> model = Load(path, true);
  StatusOr<ModelGraph> plain = Load(path, false);
  ASSERT_TRUE(model.ok() && plain.ok()) << model.status().ToString() << plain.status().ToString();
  EXPECT_EQ(model->conv_epilogues, 1) << Kinds(*model);
  EXPECT_EQ(Count(*model, kEpilogue), 1);
  EXPECT_EQ(Count(*model, "aten::add"), 1);
  EXPECT_EQ(Difference(*model, *plain), 0.0);
}

TEST(ConvEpilogueTest, ExportedProgramsTailsAreFusedToo) {
  // BranchCnn: three conv-batchnorm-relu blocks; the front end folds each batch norm into its convolution.
  const std::string dir = std::string(NIMBLE_SOURCE_DIR) + "/tests/accelerate/data/export/";
  const std::vector<int64_t> image = {2, 3, 8, 8};  // the shape it was exported with
  StatusOr<ModelGraph> fused = Load(dir + "cnn_branches.pt2", true, image);
  StatusOr<ModelGraph> plain = Load(dir + "cnn_branches.pt2", false, image);
  ASSERT_TRUE(fused.ok() && plain.ok()) << fused.status().ToString() << plain.status().ToString();
  EXPECT_EQ(fused->conv_epilogues, 3) << Kinds(*fused) << "; unfused: " << Kinds(*plain);
  EXPECT_EQ(Count(*fused, kEpilogue), 3);
  EXPECT_EQ(Count(*fused, "aten::relu") + Count(*fused, "aten::relu_"), 0);
  EXPECT_EQ(Count(*plain, "aten::relu") + Count(*plain, "aten::relu_"), 3);
  EXPECT_EQ(Difference(*fused, *plain, image), 0.0);
  // Decomposed to core ATen, batch norm stays an op of its own (not folded), so no convolution is
  // followed by a tail.
  StatusOr<ModelGraph> core = Load(dir + "cnn_core_aten.pt2", true, image);
  ASSERT_TRUE(core.ok()) << core.status().ToString();
  EXPECT_EQ(core->conv_epilogues, 0) << Kinds(*core);
}

}  // namespace
}  // namespace nimble::testing
