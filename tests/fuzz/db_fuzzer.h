// A mutation fuzzer over run databases and everything that reads one for a report: copies a seed
// database, damages the copy (random bytes in a page, a zeroed page, a flipped bit, a truncation),
// reports it in a child process (workflow::OpenForReport + workflow::Report, nothing stored) and
// classifies the outcome against the pristine file's report: a clean error, the same report (the
// damage hit unused space), a different report with exit 0 (a wrong report: the defect this hunts),
// a crash or a hang. Shared by the bounded test and the longer benchmark. One call at a time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nimble::fuzz {

struct FuzzOptions {
  std::string seed_db;          // a run database that reports cleanly
  std::string work_dir;         // where mutants are written (one file at a time)
  int64_t mutants = 100;
  uint64_t seed = 1;
  int64_t timeout_ms = 20'000;  // per report, after which the child is killed and counted as a hang
  int64_t keep_mutant = -1;     // this mutant is also saved as work_dir/kept.db, to reproduce a finding
};

struct FuzzCounts {
  int64_t tried = 0;
  int64_t errors = 0;   // reported a clear error (exit 1)
  int64_t same = 0;     // reported exactly the pristine report
  int64_t wrong = 0;    // reported something else with exit 0
  int64_t crashes = 0;  // killed by a signal, or an unexpected exit code
  int64_t hangs = 0;
  std::vector<std::string> examples;  // the first few wrong/crash/hang cases: mutation and outcome
};

FuzzCounts FuzzReports(const FuzzOptions& options);

}  // namespace nimble::fuzz
