// Locations and file helpers of the golden tests.
#include "golden_files.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace nimble::golden {

namespace fs = std::filesystem;

fs::path GoldenDir() { return fs::path(NIMBLE_SOURCE_DIR) / "tests" / "golden"; }
fs::path ExpectedDir() { return GoldenDir() / "expected"; }

GoldenPaths DefaultPaths() {
  return {fs::path(NIMBLE_PROF_PATH), fs::path(NIMBLE_SOURCE_DIR) / "samples" / "recorded"};
}

bool UpdateMode() {
  const char* value = std::getenv("NIMBLE_UPDATE_GOLDENS");
  return value != nullptr && std::string(value) == "1";
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void WriteFile(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

const LoadedCases& Cases() {
  static const LoadedCases loaded = [] {
    const fs::path file = GoldenDir() / "cases.txt";
    if (!fs::exists(file)) return LoadedCases{{}, file.string() + ": no such file"};
    auto parsed = ParseGoldenCases(ReadFile(file));
    if (!parsed.ok()) return LoadedCases{{}, file.string() + ": " + parsed.status().message()};
    return LoadedCases{std::move(parsed).value(), ""};
  }();
  return loaded;
}

const GoldenCase* FindCase(const std::string& expected) {
  for (const GoldenCase& c : Cases().cases) {
    if (c.expected == expected) return &c;
  }
  return nullptr;
}

std::string RegenerateHint(const GoldenCase& c) {
  const std::string build = NIMBLE_BINARY_DIR;
  return "If the change is intended, regenerate with `tools/update_goldens.sh " + build + "` (this case alone: " +
         "NIMBLE_UPDATE_GOLDENS=1 " + build + "/tests/golden/nimble_golden_tests --gtest_filter='*/" +
         c.TestName() + "') and commit the expected file with a message that says why.";
}

}  // namespace nimble::golden
