// A program linking nimble::accelerate must get the real std::filesystem, not the copy libtorch.so
// exports (which crashes when called from outside torch; accelerate/CMakeLists.txt says how).
#include <gtest/gtest.h>

#include <filesystem>

#include "test_models.h"

namespace nimble::testing {
namespace {

namespace fs = std::filesystem;

TEST(FilesystemLinkTest, DirectoryWalkAndRemoveAllWork) {
  const fs::path root = fs::path(TestDir()) / "walk";
  fs::create_directories(root / "a" / "b");
  int entries = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) entries += entry.is_directory() ? 1 : 0;
  EXPECT_EQ(entries, 2);
  std::error_code ec;
  EXPECT_EQ(fs::remove_all(root, ec), 3u) << ec.message();
  EXPECT_FALSE(fs::exists(root));
}

}  // namespace
}  // namespace nimble::testing
