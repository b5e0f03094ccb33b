// Names Kineto writes, decoded: copy and memset kinds, sync kinds, and kernels' short names (against the
// base name of random generated C++ names with namespaces, template arguments and parameter lists).
#include "kineto_names.h"

#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <string>

namespace nimble::workflow {
namespace {

TEST(KinetoNamesTest, CopyNamesGiveKindAndMemoryKinds) {
  const auto htod = ParseMemcpyName("Memcpy HtoD (Pageable -> Device)");
  ASSERT_TRUE(htod.has_value());
  EXPECT_EQ(htod->copy_kind, CopyKind::kHtoD);
  EXPECT_EQ(htod->src_kind, MemoryKind::kPageable);
  EXPECT_EQ(htod->dst_kind, MemoryKind::kDevice);
  const auto dtoh = ParseMemcpyName("Memcpy DtoH (Device -> Pinned)");
  ASSERT_TRUE(dtoh.has_value());
  EXPECT_EQ(dtoh->copy_kind, CopyKind::kDtoH);
  EXPECT_EQ(dtoh->dst_kind, MemoryKind::kPinned);
  const auto peer = ParseMemcpyName("Memcpy PtoP (Device Static -> Managed Static)");
  ASSERT_TRUE(peer.has_value());
  EXPECT_EQ(peer->copy_kind, CopyKind::kPtoP);
  EXPECT_EQ(peer->src_kind, MemoryKind::kDeviceStatic);
  EXPECT_EQ(peer->dst_kind, MemoryKind::kManagedStatic);
  for (const char* bad : {"Memcpy", "Memcpy HtoD", "Memcpy XtoY (Device -> Device)", "Memcpy HtoD (Device Device)",
                          "Memcpy HtoD (Device -> Nowhere)", "memcpy HtoD (Pageable -> Device)", "Memcpy <unknown> (Unknown -> Unknown)"}) {
    EXPECT_FALSE(ParseMemcpyName(bad).has_value()) << bad;
  }
}

TEST(KinetoNamesTest, MemsetAndSyncNames) {
  EXPECT_EQ(ParseMemsetName("Memset (Device)"), MemoryKind::kDevice);
  EXPECT_EQ(ParseMemsetName("Memset (Managed)"), MemoryKind::kManaged);
  EXPECT_FALSE(ParseMemsetName("Memset Device").has_value());
  EXPECT_FALSE(ParseMemsetName("Memset (Elsewhere)").has_value());
  EXPECT_EQ(ParseSyncKind("Event Sync"), SyncKind::kEventSynchronize);
  EXPECT_EQ(ParseSyncKind("Stream Wait Event"), SyncKind::kStreamWaitEvent);
  EXPECT_EQ(ParseSyncKind("Stream Sync"), SyncKind::kStreamSynchronize);
  EXPECT_EQ(ParseSyncKind("Context Sync"), SyncKind::kContextSynchronize);
  EXPECT_EQ(ParseSyncKind("Unknown Sync"), SyncKind::kUnknown);
}

TEST(KinetoNamesTest, ShortNamesOfRealKernels) {
  EXPECT_EQ(ShortKernelName("triton_poi_fused_add_0"), "triton_poi_fused_add_0");
  EXPECT_EQ(ShortKernelName("void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>("
                            "cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4::Params)"),
            "Kernel2");
  EXPECT_EQ(ShortKernelName("void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::"
                            "launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar)::{lambda()#1}::operator()() "
                            "const::{lambda(float)#1}, at::detail::Array<char*, 2> >(int, at::native::(anonymous "
                            "namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar)::{lambda()#1}::"
                            "operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2>)"),
            "vectorized_elementwise_kernel");
}

// Random "ret ns1::ns2::base<args>(params)" with nested brackets in args and params: the short name is base.
TEST(KinetoNamesTest, ShortNameIsTheBaseOfRandomGeneratedNames) {
  std::mt19937 rng(11);
  const char* words[] = {"at", "native", "cutlass", "float", "int", "Array", "Functor", "x1", "k_2"};
  auto word = [&] { return std::string(words[rng() % 9]); };
  std::function<std::string(int)> type = [&](int depth) -> std::string {
    std::string t = word();
    if (depth > 0 && rng() % 2 == 0) {
      t += "<";
      const int n = 1 + static_cast<int>(rng() % 3);
      for (int i = 0; i < n; ++i) t += (i ? ", " : "") + type(depth - 1);
      t += " >";
    }
    if (depth > 0 && rng() % 4 == 0) t += "::{lambda(" + type(depth - 1) + ")#1}";
    if (rng() % 3 == 0) t += "*";
    return t;
  };
  for (int i = 0; i < 3000; ++i) {
    const std::string base = "kernel_" + std::to_string(i);
    std::string name = rng() % 2 ? "void " : "";
    for (int n = static_cast<int>(rng() % 3); n > 0; --n) name += word() + "::";
    name += base;
    if (rng() % 2) {
      name += "<";
      for (int a = 0, n = 1 + static_cast<int>(rng() % 3); a < n; ++a) name += (a ? ", " : "") + type(2);
      name += ">";
    }
    if (rng() % 3) {
      name += "(";
      for (int a = 0, n = static_cast<int>(rng() % 3); a < n; ++a) name += (a ? ", " : "") + type(2);
      name += ")";
    }
    EXPECT_EQ(ShortKernelName(name), base) << name;
  }
}

}  // namespace
}  // namespace nimble::workflow
