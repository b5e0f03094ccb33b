// Writes the sample SCHEMA-SYNTHETIC Nsight Systems export (SampleNsysFixture) to the path given, for
// the committed copy in tests/store/data/nsys/ that tools and other modules' tests read.
// Usage: nimble_make_nsys_fixture <new file>
#include <filesystem>
#include <iostream>

#include "make_nsys_fixture.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " <new .sqlite file>\n";
    return 1;
  }
  const std::string path = argv[1];
  if (std::filesystem::exists(path)) {
    std::cerr << path << ": already exists; remove it first\n";
    return 1;
  }
  const nimble::Status s = nimble::store::testing::WriteNsysFixture(path, nimble::store::testing::SampleNsysFixture());
  if (!s.ok()) {
    std::cerr << s.message() << "\n";
    std::filesystem::remove(path);
    return 1;
  }
  return 0;
}
