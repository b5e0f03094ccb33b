// The tensor checks TensorRunner and TrainingStep share (accelerate/src/tensor_checks.h): the words for
// dtypes and shapes, what CheckAgainstBuffer says first, and the training check's relative L2 distance.
// CPU tensors only.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <cmath>
#include <string>
#include <vector>

#include "tensor_checks.h"

namespace nimble::testing {
namespace {

using ::nimble::accelerate::CheckAgainstBuffer;
using ::nimble::accelerate::DtypeName;
using ::nimble::accelerate::RelativeL2Distance;
using ::nimble::accelerate::SizesText;

TEST(TensorChecksTest, NamesDtypesAndShapes) {
  EXPECT_EQ(DtypeName(c10::kHalf), "float16");
  EXPECT_EQ(DtypeName(c10::kBFloat16), "bfloat16");
  EXPECT_EQ(DtypeName(c10::kLong), "int64");
  EXPECT_EQ(DtypeName(c10::kDouble), "float64");
  EXPECT_EQ(SizesText({1, 3, 224, 224}), "1x3x224x224");
  EXPECT_EQ(SizesText({}), "a scalar");
}

TEST(TensorChecksTest, SaysTheFirstDifferenceAndNamesTheInput) {
  const at::Tensor buffer = at::zeros({2, 3});
  EXPECT_TRUE(CheckAgainstBuffer("input 0", at::ones({2, 3}), buffer).ok());
  const Status dtype = CheckAgainstBuffer("m.nimble: input 1", at::zeros({4}, at::kHalf), buffer);
  EXPECT_EQ(dtype.code(), StatusCode::kInvalidArgument);
  // Dtype is checked before shape: both differ, the dtype is named.
  EXPECT_EQ(dtype.message(), "m.nimble: input 1 is float16, the graph was captured for float32");
  const Status shape = CheckAgainstBuffer("input 0", at::zeros({3, 2}), buffer);
  EXPECT_EQ(shape.message(), "input 0 has shape 3x2, the graph was captured for 2x3");
  EXPECT_EQ(CheckAgainstBuffer("input 0", at::Tensor(), buffer).message(), "input 0 is undefined (None)");
}

TEST(TensorChecksTest, RelativeDistanceIsOverAllTensorsTogether) {
  const std::vector<at::Tensor> same = {at::arange(6, at::kFloat), at::ones({2, 2})};
  EXPECT_EQ(RelativeL2Distance(same, same), 0.0);
  // a - b = (3, 0) and (0, 4): ||a - b|| = 5; ||b|| = sqrt(1 + 1 + 23) = 5.
  const std::vector<at::Tensor> b = {at::tensor({1.0f, 1.0f}), at::tensor({std::sqrt(23.0f)})};
  const std::vector<at::Tensor> a = {at::tensor({4.0f, 1.0f}), at::tensor({std::sqrt(23.0f) + 4.0f})};
  EXPECT_NEAR(RelativeL2Distance(a, b), 1.0, 1e-6);
  // Not symmetric: relative to the second list.
  EXPECT_LT(RelativeL2Distance(b, a), 1.0);
  // Against zeros, the absolute distance.
  const std::vector<at::Tensor> zeros = {at::zeros({2}), at::zeros({1})};
  EXPECT_NEAR(RelativeL2Distance(a, zeros), std::sqrt(16.0 + 1.0 + std::pow(std::sqrt(23.0) + 4.0, 2)), 1e-5);
  // Half tensors are measured in double: in half precision the norm of two 60000s (84853) would overflow
  // the largest half (65504) and the distance would come out 0 or NaN.
  const std::vector<at::Tensor> h = {at::full({2}, 60000.0, at::kHalf)};
  const std::vector<at::Tensor> h1 = {at::full({2}, 60032.0, at::kHalf)};  // the next half after 60000
  EXPECT_NEAR(RelativeL2Distance(h1, h), 32.0 / 60000.0, 1e-12);
}

TEST(TensorChecksTest, RelativeDistanceRefusesListsThatDoNotPair) {
  const std::vector<at::Tensor> two = {at::ones({2}), at::ones({3})};
  EXPECT_THROW(RelativeL2Distance(two, {at::ones({2})}), c10::Error);
  EXPECT_THROW(RelativeL2Distance(two, {at::ones({2}), at::ones({1})}), c10::Error);  // no broadcasting
}

}  // namespace
}  // namespace nimble::testing
