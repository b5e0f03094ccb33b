// The short kernel name nsys would show, for CUPTI's demangled names and the importers' alike (the
// importers' own cases are in tests/workflow/kineto_names_test.cpp). Also: a trailing qualifier after
// the parameters does not become the name.
#include "nimble/core/kernel_name.h"

#include <gtest/gtest.h>

namespace nimble {
namespace {

TEST(KernelNameTest, ShortNames) {
  EXPECT_EQ(ShortKernelName("spin_kernel(long long)"), "spin_kernel");
  EXPECT_EQ(ShortKernelName("void nimble::test::reduce<256>(float const*, float*, int)"), "reduce");
  EXPECT_EQ(ShortKernelName("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
                            "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, "
                            "at::detail::Array<char*, 1>)"),
            "vectorized_elementwise_kernel");
  EXPECT_EQ(ShortKernelName("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4>"
                            "(cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4::Params)"),
            "Kernel");
  EXPECT_EQ(ShortKernelName("plain_c_kernel"), "plain_c_kernel");
  EXPECT_EQ(ShortKernelName("ns::functor::operator()(int)"), "operator()");
  EXPECT_EQ(ShortKernelName("ns::Functor::operator()(int) const"), "operator()");
}

}  // namespace
}  // namespace nimble
