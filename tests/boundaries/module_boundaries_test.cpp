#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "module_rules.h"

namespace nimble::testing {
namespace {

namespace fs = std::filesystem;

class FixtureTree : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("nimble_boundaries_" + std::to_string(::getpid()));
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  void Write(const std::string& rel, const std::string& text) {
    fs::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel) << text;
  }
  fs::path root_;
};

TEST(ModuleBoundariesTest, RealTreeRespectsDesign) {
  const auto violations = FindBoundaryViolations(NIMBLE_SOURCE_DIR);
  for (const Violation& v : violations) {
    ADD_FAILURE() << v.file << ":" << v.line << ": #include <" << v.include << ">: " << v.rule;
  }
}

TEST_F(FixtureTree, AllowedIncludesPass) {
  Write("analysis/src/a.cpp", "#include <boost/graph/adjacency_list.hpp>\n#include \"nimble/core/trace.h\"\n");
  Write("store/src/db.cpp", "#include <sqlite3.h>\n");
  Write("collector/src/c.cpp", "#include <cupti.h>\n#include \"nimble/store/run_writer.h\"\n");
  Write("gui/src/v.cpp", "#include <QWidget>\n#include \"nimble/analysis/timeline.h\"\n");
  EXPECT_TRUE(FindBoundaryViolations(root_).empty());
}

TEST_F(FixtureTree, PlantedViolationsAreFoundWithFileAndLine) {
  Write("analysis/src/bad.cpp", "#include <vector>\n#include <cuda_runtime.h>\n");
  Write("core/include/nimble/core/x.h", "#include \"nimble/store/run_reader.h\"\n");
  Write("store/include/nimble/store/leak.h", "#include <sqlite3.h>\n");
  Write("gui/src/w.cpp", "  #  include <torch/script.h>\n");
  Write("cli/main.cpp", "#include <QApplication>\n");
  Write("collector/src/c.cpp", "#include \"nimble/analysis/dag.h\"\n");
  const auto v = FindBoundaryViolations(root_);
  ASSERT_EQ(v.size(), 6u);
  bool saw_cuda = false;
  for (const Violation& x : v) {
    if (x.file == "analysis/src/bad.cpp") {
      saw_cuda = true;
      EXPECT_EQ(x.line, 2);
      EXPECT_EQ(x.include, "cuda_runtime.h");
    }
  }
  EXPECT_TRUE(saw_cuda);
}

}  // namespace
}  // namespace nimble::testing
