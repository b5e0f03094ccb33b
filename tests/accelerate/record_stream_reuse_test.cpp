// The capture's allocator setting (accelerate/src/record_stream_reuse.h): on for every capture of a
// process, not only the first, and left to the process where its own settings name it. The settings
// are parsed on the host: no GPU needed.
#include "record_stream_reuse.h"

#include <c10/core/AllocatorConfig.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace nimble::accelerate {
namespace {

TEST(RecordStreamReuseScope, EveryScopeOfAProcessTurnsItOnAndOffAgain) {
  if (std::getenv("PYTORCH_CUDA_ALLOC_CONF") != nullptr || std::getenv("PYTORCH_ALLOC_CONF") != nullptr) {
    GTEST_SKIP() << "the environment sets the allocator's settings";
  }
  c10::CachingAllocator::setAllocatorSettings("");
  ASSERT_FALSE(RecordStreamReuseScope::Active());
  for (int capture = 0; capture < 3; ++capture) {
    {
      RecordStreamReuseScope scope;
      EXPECT_TRUE(RecordStreamReuseScope::Active()) << "capture " << capture;
    }
    EXPECT_FALSE(RecordStreamReuseScope::Active()) << "after capture " << capture;
  }
}

TEST(RecordStreamReuseScope, KeepsTheProcessesOtherSettingsAndLeavesItsOwnChoiceAlone) {
  if (std::getenv("PYTORCH_CUDA_ALLOC_CONF") != nullptr || std::getenv("PYTORCH_ALLOC_CONF") != nullptr) {
    GTEST_SKIP() << "the environment sets the allocator's settings";
  }
  c10::CachingAllocator::setAllocatorSettings("max_split_size_mb:64");
  for (int capture = 0; capture < 2; ++capture) {
    {
      RecordStreamReuseScope scope;
      EXPECT_TRUE(RecordStreamReuseScope::Active());
      EXPECT_NE(c10::CachingAllocator::getAllocatorSettings().find("max_split_size_mb:64"), std::string::npos);
    }
    EXPECT_FALSE(RecordStreamReuseScope::Active()) << "after capture " << capture;
    EXPECT_EQ(c10::CachingAllocator::getAllocatorSettings().rfind("max_split_size_mb:64", 0), 0U);
  }
  // The process turned it off itself: a scope leaves it off.
  c10::CachingAllocator::setAllocatorSettings("graph_capture_record_stream_reuse:False,max_split_size_mb:64");
  {
    RecordStreamReuseScope scope;
    EXPECT_FALSE(RecordStreamReuseScope::Active());
  }
  c10::CachingAllocator::setAllocatorSettings("");
}

}  // namespace
}  // namespace nimble::accelerate
