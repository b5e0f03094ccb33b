// accelerate's public headers must compile without libtorch, so that the CLI can include them:
// no torch, ATen, c10 or caffe2 include may appear in them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

namespace nimble::testing {
namespace {

TEST(PublicHeadersTest, IncludeNoLibtorchHeader) {
  const std::filesystem::path root = NIMBLE_ACCELERATE_INCLUDE_DIR;
  ASSERT_TRUE(std::filesystem::is_directory(root)) << root;
  const std::regex torch_include(R"(^\s*#\s*include\s*[<"](torch/|ATen/|c10/|caffe2/))");
  int headers = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    ++headers;
    std::ifstream in(entry.path());
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      EXPECT_FALSE(std::regex_search(line, torch_include)) << entry.path() << ":" << n << ": " << line;
    }
  }
  EXPECT_GE(headers, 2);
}

}  // namespace
}  // namespace nimble::testing
