// GELU's tanh approximation written out element by element (GPT-2's "gelu_new") becomes one aten::gelu
// when the front end optimizes, from TorchScript and from a torch.export program alike, with the same
// values; a near miss of the pattern, or an intermediate read elsewhere, is left alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "nimble/accelerate/model_graph.h"
#include "nimble/accelerate/model_timing.h"
#include "test_models.h"

namespace nimble::testing {

using namespace ::nimble::accelerate;  // NOLINT: the module under test
namespace {

// h = x @ w0, then the activation with `kappa` in place of 0.044715 and `half` in place of 0.5;
// `tanh_read_twice` adds the tanh to the result, a second reader of an intermediate.
std::string WrittenOutGelu(const std::string& kappa, bool tanh_read_twice = false, const std::string& half = "0.5") {
  return SaveModelFromSource(
      "def forward(self, x):\n"
      "    h = torch.matmul(x, self.w0)\n"
      "    t = torch.tanh(0.7978845608028654 * (h + " + kappa + " * torch.pow(h, 3.0)))\n"
      "    y = " + half + " * h * (1.0 + t)\n" +
          std::string(tanh_read_twice ? "    return y + t\n" : "    return y\n"),
      {{8, 16}});
}

StatusOr<ModelGraph> Load(const std::string& path, bool optimize) {
  return LoadModelGraph(path, {{3, 8}}, FrontEndOptions{.optimize = optimize});
}

int Count(const ModelGraph& model, const std::string& kind) {
  return static_cast<int>(std::count_if(model.graph.ops.begin(), model.graph.ops.end(),
                                        [&](const Op& op) { return op.kind == kind; }));
}

double Difference(const ModelGraph& a, const ModelGraph& b) {
  const HostTensor input = HostTensor::Random({3, 8}, 11);
  StatusOr<std::vector<HostTensor>> out_a = RunOnce(a.model, {input});
  StatusOr<std::vector<HostTensor>> out_b = RunOnce(b.model, {input});
  EXPECT_TRUE(out_a.ok() && out_b.ok());
  if (!out_a.ok() || !out_b.ok()) return 1.0;
  StatusOr<double> error = MaxRelativeError(*out_a, *out_b);
  return error.ok() ? *error : 1.0;
}

TEST(GeluFusionTest, WrittenOutTanhGeluBecomesOneKernel) {
  const std::string path = WrittenOutGelu("0.044715");
  StatusOr<ModelGraph> fused = Load(path, true);
  StatusOr<ModelGraph> plain = Load(path, false);
  ASSERT_TRUE(fused.ok() && plain.ok()) << fused.status().ToString() << plain.status().ToString();
  std::vector<std::string> kinds;
  for (const Op& op : fused->graph.ops) kinds.push_back(op.kind);
  EXPECT_EQ(kinds, (std::vector<std::string>{"aten::matmul", "aten::gelu"}));
  EXPECT_EQ(Count(*plain, "aten::tanh"), 1);
  EXPECT_EQ(plain->graph.ops.size(), 9u);  // matmul and the eight element-wise ops
  EXPECT_LE(Difference(*fused, *plain), 1e-6);
}

TEST(GeluFusionTest, NearMissesAndSharedIntermediatesAreLeftAlone) {
  // The last: 0.5 as a tensor of shape [1], which broadcasts and could promote the dtype, unlike gelu.
  for (const std::string& path : {WrittenOutGelu("0.045"), WrittenOutGelu("0.044715", true),
                                  WrittenOutGelu("0.044715", false, "torch.tensor([0.5])")}) {
    StatusOr<ModelGraph> model = Load(path, true);
    ASSERT_TRUE(model.ok()) << model.status().ToString();
    EXPECT_EQ(Count(*model, "aten::gelu"), 0) << path;
    EXPECT_EQ(Count(*model, "aten::tanh"), 1) << path;
  }
}

TEST(GeluFusionTest, ExportedProgramsActivationIsFusedToo) {
  const std::string path = std::string(NIMBLE_SOURCE_DIR) + "/tests/accelerate/data/export/tanh_gelu_mlp.pt2";
  StatusOr<ModelGraph> fused = Load(path, true);
  StatusOr<ModelGraph> plain = Load(path, false);
  ASSERT_TRUE(fused.ok() && plain.ok()) << fused.status().ToString() << plain.status().ToString();
  EXPECT_EQ(Count(*fused, "aten::gelu"), 1);
  EXPECT_EQ(Count(*fused, "aten::tanh"), 0);
  EXPECT_EQ(Count(*plain, "aten::tanh"), 1);
  EXPECT_LE(Difference(*fused, *plain), 1e-6);
}

}  // namespace
}  // namespace nimble::testing
