// The long fuzz run over the run-database readers (tests/fuzz/db_fuzzer.h): N damaged copies of a
// seed database, each reported in a child process, outcomes counted. Its output is a markdown table
// row for bench/results/db_fuzz.md.
//   nimble_db_fuzz_bench SEED_DB MUTANTS [RNG_SEED]      (NIMBLE_FUZZ_KEEP=N keeps mutant N)
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "db_fuzzer.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s SEED_DB MUTANTS [RNG_SEED]\n", argv[0]);
    return 2;
  }
  nimble::fuzz::FuzzOptions options;
  options.seed_db = argv[1];
  options.mutants = std::atoll(argv[2]);
  options.seed = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1;
  // NIMBLE_FUZZ_KEEP=N keeps mutant N (as /tmp/nimble_db_fuzz_kept/kept.db) to reproduce a finding.
  const char* keep = std::getenv("NIMBLE_FUZZ_KEEP");
  options.keep_mutant = keep != nullptr ? std::atoll(keep) : -1;
  options.work_dir = keep != nullptr ? (std::filesystem::temp_directory_path() / "nimble_db_fuzz_kept").string()
                                     : (std::filesystem::temp_directory_path() / ("nimble_db_fuzz_" + std::to_string(::getpid()))).string();
  const auto start = std::chrono::steady_clock::now();
  const nimble::fuzz::FuzzCounts c = nimble::fuzz::FuzzReports(options);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (keep == nullptr) std::filesystem::remove_all(options.work_dir);
  std::printf("| %s | %lld | %llu | %lld | %lld | %lld | %lld | %lld | %lld | %.0f |\n",
              std::filesystem::path(options.seed_db).filename().c_str(), static_cast<long long>(c.tried),
              static_cast<unsigned long long>(options.seed), static_cast<long long>(c.errors),
              static_cast<long long>(c.same), static_cast<long long>(c.wrong), static_cast<long long>(c.crashes),
              static_cast<long long>(c.hangs), static_cast<long long>(c.tried - c.errors - c.same - c.wrong - c.crashes - c.hangs),
              seconds);
  for (const std::string& e : c.examples) std::fprintf(stderr, "%s\n", e.c_str());
  return c.wrong + c.crashes + c.hangs == 0 ? 0 : 1;
}
