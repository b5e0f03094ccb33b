#include "nimble/core/string_table.h"

#include <gtest/gtest.h>

#include <string>

namespace nimble {
namespace {

TEST(StringTableTest, InternIsIdempotentAndDense) {
  StringTable t;
  StringId a = t.Intern("volta_sgemm");
  StringId b = t.Intern("cudaLaunchKernel_v7000");
  EXPECT_EQ(a, StringId(0));
  EXPECT_EQ(b, StringId(1));
  EXPECT_EQ(t.Intern("volta_sgemm"), a);
  EXPECT_EQ(t.size(), 2u);
  EXPECT_EQ(t.Get(b), "cudaLaunchKernel_v7000");
}

TEST(StringTableTest, FindDoesNotInsertAndInvalidIdGivesEmpty) {
  StringTable t;
  EXPECT_FALSE(t.Find("x").valid());
  EXPECT_EQ(t.size(), 0u);
  EXPECT_EQ(t.Get(StringId()), "");
}

TEST(StringTableTest, SurvivesRehashing) {
  StringTable t;
  for (int i = 0; i < 10000; ++i) t.Intern("k" + std::to_string(i));
  for (int i = 0; i < 10000; ++i) {
    ASSERT_EQ(t.Find("k" + std::to_string(i)), StringId(i));
    ASSERT_EQ(t.Get(StringId(i)), "k" + std::to_string(i));
  }
}

}  // namespace
}  // namespace nimble
