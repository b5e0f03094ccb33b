// Runs one golden case: copies its input into a fresh directory, runs its steps there with relative
// paths (so no output holds a machine's absolute path), and returns the text its expected file must
// equal. Test-only; each call uses its own directory, removed afterwards.
#pragma once

#include <filesystem>
#include <string>

#include "golden_case.h"
#include "nimble/core/status.h"

namespace nimble::golden {

struct GoldenPaths {
  std::filesystem::path nimble_prof;  // the binary under test
  std::filesystem::path inputs;       // samples/recorded/
};

// The case's output as its expected file holds it. A single step gives its output alone; several
// give each output after a line "$ <step>". Capture::kAll adds "--- stderr ---" and the stderr, then
// "--- exit code N ---". An error (input missing, a step failing where the case does not capture its
// exit code, output that is not JSON where it must be) comes back as a Status with the step's stderr.
StatusOr<std::string> RunGoldenCase(const GoldenCase& c, const GoldenPaths& paths);

}  // namespace nimble::golden
