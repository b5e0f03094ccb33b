// A mutation fuzzer over `nimble-prof import`'s readers: damages a copy of a seed trace (a truncation,
// flipped bytes, a deleted or duplicated span, a number turned into a string; gzip seeds are damaged as
// compressed bytes), imports it in a child process (workflow::Import) and classifies the outcome: a
// clean import (a complete database, no .partial), a clean error (its message names the input, nothing
// left at the output), or a defect: an error that does not name the file, files left behind after an
// error, a crash, a hang. Shared by the bounded test and the longer benchmark. One call at a time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nimble::fuzz {

struct ImportFuzzOptions {
  std::vector<std::string> seeds;  // traces that import cleanly (plain JSON or gzip)
  std::string work_dir;            // mutants and their outputs (one at a time)
  int64_t inputs = 100;
  uint64_t seed = 1;
  int64_t timeout_ms = 10'000;  // per import, after which the child is killed and counted as a hang
};

struct ImportFuzzCounts {
  int64_t tried = 0;
  int64_t imported = 0;   // a clean import
  int64_t errors = 0;     // a clean error naming the file
  int64_t unnamed = 0;    // an error whose message does not name the input
  int64_t leftovers = 0;  // an output or .partial left behind after an error, or a .partial after success
  int64_t crashes = 0;    // killed by a signal, or an unexpected exit code
  int64_t hangs = 0;
  std::vector<std::string> examples;  // the first few defects: mutation and outcome

  int64_t defects() const { return unnamed + leftovers + crashes + hangs; }
};

ImportFuzzCounts FuzzImports(const ImportFuzzOptions& options);

}  // namespace nimble::fuzz
