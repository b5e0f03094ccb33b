// Helpers shared by the store tests: a scratch directory per test, random traces and results that
// exercise every column, and comparisons of traces whose string tables number strings differently.
// Single-threaded test code.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "nimble/core/op_graph.h"
#include "nimble/core/run.h"
#include "nimble/core/schedule.h"
#include "nimble/core/trace.h"

namespace nimble::store::testing {

// A fresh directory under the system temp dir, removed with everything in it at the end of the test.
class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;
  std::string PathOf(const std::string& name) const { return (dir_ / name).string(); }
  // The names of the files in the directory, sorted.
  std::vector<std::string> ListDir() const;

  std::filesystem::path dir_;
};

RunInfo SampleRun(RunMode mode);

// A kernel with every field set from `i`; names drawn from `names_count` distinct strings.
KernelRecord MakeKernel(StringTable& strings, int64_t i, int names_count = 100);

// A trace with `scale` records of most kinds, random values in every field (including invalid ids,
// empty and non-ASCII strings), start <= end everywhere.
Trace RandomTrace(std::mt19937_64& rng, int scale);
// A DAG of `ops` ops with random edges, a valid assignment, attribution, metrics, speedups and stats.
struct RandomResults {
  OpGraph graph;
  std::vector<KernelAttribution> attribution;
  StreamAssignment assignment;
  std::vector<Metric> metrics;
  std::vector<Speedup> speedups;
  std::vector<StatEntry> stats;
};
RandomResults MakeRandomResults(std::mt19937_64& rng, int ops, int64_t kernels);

// Expects `actual` to hold the same records as `expected`, in order, comparing strings by text.
void ExpectSameTrace(const Trace& expected, const Trace& actual);

// Runs `body` in a forked child that, when root, first gives up the capabilities that let it ignore
// file permissions, so that chmod makes files read-only for it. Returns body's result ("" for
// success, else what went wrong), or a description of how the child failed.
std::string RunWithoutPermissionOverride(const std::function<std::string()>& body);

// Reads a whole file (for checking that a failed open left it byte for byte unchanged).
std::string ReadFileBytes(const std::string& path);
void WriteFileBytes(const std::string& path, const std::string& bytes);

}  // namespace nimble::store::testing
