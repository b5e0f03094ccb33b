// Kernel names: demangling, and the pointer cache that must never hand back a stale name when CUPTI
// reuses an address (the short name is core's: tests/core/kernel_name_test.cpp).
#include "nimble/collector/kernel_names.h"

#include <gtest/gtest.h>

#include <cstring>

namespace nimble::collector {
namespace {

TEST(KernelNamesTest, Demangles) {
  EXPECT_EQ(DemangleKernelName("_Z11spin_kernelx"), "spin_kernel(long long)");
  EXPECT_EQ(DemangleKernelName("plain_c_kernel"), "plain_c_kernel");
  EXPECT_EQ(DemangleKernelName(nullptr), "<unknown>");
}

TEST(KernelNamesTest, CacheInternsOncePerNameAndNoticesReusedAddresses) {
  StringTable strings;
  KernelNameCache cache(strings);
  char storage[64];
  std::strcpy(storage, "_Z11spin_kernelx");
  const KernelNameIds first = cache.Lookup(storage);
  EXPECT_EQ(strings.Get(first.name), "spin_kernel(long long)");
  EXPECT_EQ(strings.Get(first.short_name), "spin_kernel");
  const size_t interned = strings.size();
  EXPECT_EQ(cache.Lookup(storage).name, first.name);
  EXPECT_EQ(strings.size(), interned);
  std::strcpy(storage, "_Z5emptyv");  // the same address now names another kernel
  const KernelNameIds second = cache.Lookup(storage);
  EXPECT_EQ(strings.Get(second.name), "empty()");
  EXPECT_NE(second.name, first.name);
  const char* copy = "_Z11spin_kernelx";  // the same text at another address: the same ids
  EXPECT_EQ(cache.Lookup(copy).name, first.name);
}

}  // namespace
}  // namespace nimble::collector
