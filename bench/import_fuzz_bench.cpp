// The long fuzz run over `import`'s trace readers (tests/fuzz/import_fuzzer.h): N damaged copies of seed
// traces, each imported in a child process with a time limit, outcomes counted.
//   nimble_import_fuzz_bench INPUTS [RNG_SEED [TIMEOUT_MS [SEED_TRACE...]]]
// Without seed traces: the Kineto fixtures of tests/workflow/data/kineto. Damaged inputs that found a
// defect are kept in the work folder, whose path is printed.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "import_fuzzer.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s INPUTS [RNG_SEED [TIMEOUT_MS [SEED_TRACE...]]]\n", argv[0]);
    return 2;
  }
  namespace fs = std::filesystem;
  nimble::fuzz::ImportFuzzOptions options;
  options.inputs = std::atoll(argv[1]);
  options.seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1;
  options.timeout_ms = argc > 3 ? std::atoll(argv[3]) : 10'000;
  for (int i = 4; i < argc; ++i) options.seeds.emplace_back(argv[i]);
  if (options.seeds.empty()) {
    const std::string data = std::string(NIMBLE_SOURCE_DIR) + "/tests/workflow/data/kineto/";
    options.seeds = {data + "profiler_steps.json", data + "cuda_graph.json", data + "profiler_steps.json.gz"};
  }
  const fs::path base = fs::is_directory("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
  options.work_dir = (base / ("nimble_import_fuzz_" + std::to_string(::getpid()))).string();
  const auto start = std::chrono::steady_clock::now();
  const nimble::fuzz::ImportFuzzCounts c = nimble::fuzz::FuzzImports(options);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("inputs tried %lld, imported %lld, clean errors %lld, crashes %lld, hangs %lld, errors not naming "
              "the file %lld, files left behind %lld (seed %llu, %.1f s, %.1f ms per input)\n",
              static_cast<long long>(c.tried), static_cast<long long>(c.imported), static_cast<long long>(c.errors),
              static_cast<long long>(c.crashes), static_cast<long long>(c.hangs), static_cast<long long>(c.unnamed),
              static_cast<long long>(c.leftovers), static_cast<unsigned long long>(options.seed), seconds,
              c.tried > 0 ? 1000.0 * seconds / static_cast<double>(c.tried) : 0.0);
  for (const std::string& e : c.examples) std::fprintf(stderr, "%s\n", e.c_str());
  if (c.defects() == 0) {
    fs::remove_all(options.work_dir);
  } else {
    std::fprintf(stderr, "damaged inputs kept in %s\n", options.work_dir.c_str());
  }
  return c.defects() == 0 ? 0 : 1;
}
