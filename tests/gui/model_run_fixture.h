// A test fixture with the known model run (gui_test_runs.h) written to a scratch directory and loaded as
// the viewer loads it; the directory is removed after the test. Single-threaded test code.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "gui_test_runs.h"
#include "nimble/gui/run_loader.h"

namespace nimble::gui::testing {

class LoadedModelRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeScratchDir("model_run");
    WriteModelRun(dir_ + "/model.db");
    auto loaded = LoadRun(dir_ + "/model.db", RunId(1));
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    run_ = std::move(*loaded);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string dir_;
  LoadedRun run_;
};

}  // namespace nimble::gui::testing
