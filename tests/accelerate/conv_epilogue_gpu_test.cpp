// nimble::conv_epilogue_'s CUDA kernel against ATen's kernels it replaces (bias add_, residual add_,
// activation), for each dtype, activation and layout: the vectorized path, the element-by-element one
// (odd sizes, misaligned storage) and ATen's own where the kernel does not apply (strided tensors, a
// residual laid out otherwise). Then a model loaded on the GPU with and without the rewrite. Skips
// without a CUDA device.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include <string>
#include <vector>

#include "conv_epilogue.h"
#include "nimble/accelerate/model_graph.h"
#include "nimble/accelerate/model_timing.h"
#include "test_models.h"

namespace nimble::testing {

using namespace ::nimble::accelerate;  // NOLINT: the module under test
namespace {

bool HaveGpu() { return torch::cuda::is_available(); }

// What the graph ran before the rewrite.
at::Tensor Reference(at::Tensor x, const std::optional<at::Tensor>& bias, const std::optional<at::Tensor>& other,
                     EpilogueActivation kind) {
  if (bias) {
    std::vector<int64_t> shape(static_cast<size_t>(x.dim()), 1);
    shape[1] = bias->numel();
    x.add_(bias->reshape(shape));
  }
  if (other) x.add_(*other);
  switch (kind) {
    case EpilogueActivation::kNone: break;
    case EpilogueActivation::kRelu: x.relu_(); break;
    case EpilogueActivation::kRelu6: at::hardtanh_(x, 0.0, 6.0); break;
    case EpilogueActivation::kSilu: at::silu_(x); break;
  }
  return x;
}

// A dense tensor of `shape` (channels_last for 4-D when asked) whose data starts one element into its
// storage, so that its address is not 16-byte aligned when `misaligned`.
at::Tensor Make(const std::vector<int64_t>& shape, at::ScalarType dtype, bool channels_last, bool misaligned) {
  const auto options = at::TensorOptions().device(at::kCUDA).dtype(dtype);
  at::Tensor t = at::randn(shape, options.dtype(at::kFloat)).mul_(4.0).to(dtype);
  if (channels_last) t = t.contiguous(at::MemoryFormat::ChannelsLast);
  if (!misaligned) return t;
  at::Tensor storage = at::empty({t.numel() + 1}, options);
  at::Tensor view = storage.narrow(0, 1, t.numel()).view(t.sizes());
  view.copy_(t);
  return view;
}

struct Layout {
  std::string name;
  std::vector<int64_t> shape;
  bool channels_last = false;
  bool misaligned = false;
};

TEST(ConvEpilogueGpuTest, TheKernelEqualsAtensKernelsForEachDtypeActivationAndLayout) {
  if (!HaveGpu()) GTEST_SKIP() << "no CUDA device";
  const std::vector<Layout> layouts = {
      {"nchw", {2, 16, 7, 9}},          {"channels_last", {2, 16, 7, 9}, true}, {"odd numel", {1, 3, 5, 7}},
      {"misaligned", {2, 8, 4, 4}, false, true}, {"3-d", {2, 16, 33}},      {"5-d", {1, 4, 3, 5, 6}},
      {"one channel", {2, 1, 5, 4}},
  };
  const std::vector<EpilogueActivation> kinds = {EpilogueActivation::kNone, EpilogueActivation::kRelu,
                                                 EpilogueActivation::kRelu6, EpilogueActivation::kSilu};
  int64_t cases = 0;
  for (const at::ScalarType dtype : {at::kFloat, at::kHalf, at::kBFloat16}) {
    for (const Layout& layout : layouts) {
      for (const EpilogueActivation kind : kinds) {
        for (const bool with_bias : {true, false}) {
          for (const bool with_other : {true, false}) {
            const at::Tensor x = Make(layout.shape, dtype, layout.channels_last, layout.misaligned);
            std::optional<at::Tensor> bias, other;
            if (with_bias) bias = at::randn({layout.shape[1]}, at::TensorOptions().device(at::kCUDA)).to(dtype);
            if (with_other) other = Make(layout.shape, dtype, layout.channels_last, layout.misaligned);
            const at::Tensor expected = Reference(x.clone(), bias, other, kind);
            at::Tensor actual = x.clone();
            ASSERT_EQ(actual.strides(), x.strides());
            const at::Tensor returned = ConvEpilogueOp(actual, bias, other, static_cast<int64_t>(kind));
            ASSERT_TRUE(returned.is_same(actual));
            const std::string what = std::string(c10::toString(dtype)) + " " + layout.name + " activation " +
                                     std::to_string(static_cast<int>(kind)) + (with_bias ? " bias" : "") +
                                     (with_other ? " residual" : "");
            if (kind == EpilogueActivation::kSilu) {  // exp may differ in the last bit between builds
              const double tolerance = dtype == at::kFloat ? 1e-6 : (dtype == at::kHalf ? 1e-3 : 1e-2);
              EXPECT_TRUE(at::allclose(actual.to(at::kFloat), expected.to(at::kFloat), tolerance, tolerance)) << what;
            } else {
              EXPECT_TRUE(at::equal(actual, expected)) << what;
            }
            ++cases;
          }
        }
      }
    }
  }
  EXPECT_EQ(cases, 3 * 7 * 4 * 2 * 2);
}

TEST(ConvEpilogueGpuTest, TensorsTheKernelDoesNotTakeGetAtensKernels) {
  if (!HaveGpu()) GTEST_SKIP() << "no CUDA device";
  const auto options = at::TensorOptions().device(at::kCUDA);
  // A strided view (every other column), and a residual laid out unlike the output.
  const at::Tensor strided = at::randn({2, 8, 6, 12}, options).slice(3, 0, 12, 2);
  const at::Tensor bias = at::randn({8}, options);
  at::Tensor actual = strided.clone(at::MemoryFormat::Preserve);
  const at::Tensor expected = Reference(strided.clone(), bias, std::nullopt, EpilogueActivation::kRelu);
  ConvEpilogueOp(actual, bias, std::nullopt, static_cast<int64_t>(EpilogueActivation::kRelu));
  EXPECT_TRUE(at::equal(actual, expected));

  const at::Tensor nhwc = at::randn({2, 8, 5, 5}, options).contiguous(at::MemoryFormat::ChannelsLast);
  const at::Tensor residual = at::randn({2, 8, 5, 5}, options);
  at::Tensor mixed = nhwc.clone();
  const at::Tensor mixed_expected = Reference(nhwc.clone(), bias, residual, EpilogueActivation::kRelu6);
  ConvEpilogueOp(mixed, bias, residual, static_cast<int64_t>(EpilogueActivation::kRelu6));
  EXPECT_TRUE(at::equal(mixed, mixed_expected));

  at::Tensor bad = nhwc.clone();
  EXPECT_THROW(ConvEpilogueOp(bad, bias, residual.to(at::kHalf), 1), c10::Error);
  EXPECT_THROW(ConvEpilogueOp(bad, bias, std::nullopt, 9), c10::Error);
}

TEST(ConvEpilogueGpuTest, AModelLoadedOnTheGpuGivesTheSameOutputWithAndWithoutTheRewrite) {
  if (!HaveGpu()) GTEST_SKIP() << "no CUDA device";
  const std::string path = SaveModelFromSource(
      "def forward(self, x):\n"
      "    a = torch.relu(torch.conv2d(x, self.w0, self.w1, 1, 1))\n"
      "    b = torch.relu(torch.conv2d(a, self.w2, self.w3, 1, 1) + x)\n"
      "    return torch.hardtanh(torch.conv2d(b, self.w4, self.w5, 1, 1), 0.0, 6.0)\n",
      {{16, 16, 3, 3}, {16}, {16, 16, 3, 3}, {16}, {16, 16, 3, 3}, {16}});
  const std::vector<int64_t> image = {1, 16, 14, 14};
  StatusOr<ModelGraph> fused = LoadModelGraph(path, {image}, FrontEndOptions{.device = "cuda"});
  StatusOr<ModelGraph> plain =
      LoadModelGraph(path, {image}, FrontEndOptions{.conv_epilogues = false, .device = "cuda"});
  ASSERT_TRUE(fused.ok() && plain.ok()) << fused.status().ToString() << plain.status().ToString();
  EXPECT_EQ(fused->conv_epilogues, 3);
  const HostTensor input = HostTensor::Random(image, 5);
  StatusOr<std::vector<HostTensor>> a = RunOnce(fused->model, {input});
  StatusOr<std::vector<HostTensor>> b = RunOnce(plain->model, {input});
  ASSERT_TRUE(a.ok() && b.ok()) << a.status().ToString() << b.status().ToString();
  StatusOr<double> error = MaxRelativeError(*a, *b);
  ASSERT_TRUE(error.ok());
  EXPECT_EQ(*error, 0.0);
}

}  // namespace
}  // namespace nimble::testing
