// The module boundaries of DESIGN.md as data, and a scanner that reports every #include that
// crosses one. Used by module_boundaries_test.cpp on the real tree and on planted fixtures.
// Pure functions over files; no shared state.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace nimble::testing {

struct Violation {
  std::string file;  // relative to the scanned root
  int line = 0;
  std::string include;
  std::string rule;
};

// Scans every C++/CUDA source under the module folders of `root`.
std::vector<Violation> FindBoundaryViolations(const std::filesystem::path& root);

}  // namespace nimble::testing
