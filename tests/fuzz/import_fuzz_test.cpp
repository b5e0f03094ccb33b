// The bounded fuzz run of `import`: a few hundred damaged copies of the Kineto fixtures (plain and gzip)
// never crash, hang, give an error that does not name the file, or leave files behind after an error.
// bench/import_fuzz_bench.cpp runs the same for longer.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "import_fuzzer.h"

namespace nimble::fuzz {
namespace {

namespace fs = std::filesystem;

TEST(ImportFuzzTest, DamagedTracesImportCleanlyOrFailNamingTheFile) {
  // tmpfs where there is one: successful imports commit (and sync) a database each.
  const fs::path base = fs::is_directory("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
  const fs::path dir = base / ("nimble_import_fuzz_" + std::to_string(::getpid()));
  const std::string data = std::string(NIMBLE_SOURCE_DIR) + "/tests/workflow/data/kineto/";
  constexpr int64_t kInputs = 300;
  const ImportFuzzCounts c = FuzzImports({.seeds = {data + "profiler_steps.json", data + "cuda_graph.json",
                                                    data + "profiler_steps.json.gz"},
                                          .work_dir = dir.string(),
                                          .inputs = kInputs,
                                          .seed = 20261124,
                                          .timeout_ms = 10'000});
  std::string examples;
  for (const std::string& e : c.examples) examples += "\n  " + e;
  if (c.defects() == 0) fs::remove_all(dir);  // otherwise the damaged inputs stay there to reproduce
  EXPECT_EQ(c.tried, kInputs);
  EXPECT_EQ(c.crashes, 0) << examples;
  EXPECT_EQ(c.hangs, 0) << examples;
  EXPECT_EQ(c.unnamed, 0) << examples;
  EXPECT_EQ(c.leftovers, 0) << examples;
  // Both outcomes must occur often enough for the run to mean something.
  EXPECT_GT(c.errors, kInputs / 5) << "imported " << c.imported;
  EXPECT_GT(c.imported, kInputs / 30) << "errors " << c.errors;
}

}  // namespace
}  // namespace nimble::fuzz
