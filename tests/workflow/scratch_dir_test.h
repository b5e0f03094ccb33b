// The fixture the workflow tests share: a scratch directory per test (named after the suite and the
// process, removed afterwards), copies of the bundled recorded runs in it, and paths for outputs.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace nimble::testing {

class ScratchDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           ("nimble_" + std::string(info->test_suite_name()) + "_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // samples/recorded/<name> copied into the directory as `as` (default: the same name).
  std::string Copy(const std::string& name, const std::string& as = "") const {
    const std::filesystem::path to = dir_ / (as.empty() ? name : as);
    std::filesystem::copy_file(std::filesystem::path(NIMBLE_SOURCE_DIR) / "samples/recorded" / name, to,
                               std::filesystem::copy_options::overwrite_existing);
    return to.string();
  }
  std::string Out(const std::string& name) const { return (dir_ / name).string(); }

  std::filesystem::path dir_;
};

}  // namespace nimble::testing
