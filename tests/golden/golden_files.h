// Where the golden tests find their cases, inputs and expected files, and the file helpers both
// golden binaries share. Paths come from the build (NIMBLE_SOURCE_DIR, NIMBLE_BINARY_DIR, NIMBLE_PROF_PATH).
#pragma once

#include <filesystem>
#include <string>

#include "golden_case.h"
#include "golden_runner.h"

namespace nimble::golden {

std::filesystem::path GoldenDir();    // tests/golden/
std::filesystem::path ExpectedDir();  // tests/golden/expected/
GoldenPaths DefaultPaths();           // the built nimble-prof and samples/recorded/

// NIMBLE_UPDATE_GOLDENS=1: write expected files instead of comparing (tools/update_goldens.sh).
bool UpdateMode();

// The cases of tests/golden/cases.txt, parsed once; on error no cases and the message.
struct LoadedCases {
  std::vector<GoldenCase> cases;
  std::string error;
};
const LoadedCases& Cases();
const GoldenCase* FindCase(const std::string& expected);

std::string ReadFile(const std::filesystem::path& path);
void WriteFile(const std::filesystem::path& path, const std::string& text);

// How to rewrite one case's expected file, for failure messages.
std::string RegenerateHint(const GoldenCase& c);

}  // namespace nimble::golden
