// Support for the collector's GPU tests: skip cleanly without a device, record a sample program
// with `nimble-prof record` into a fresh database, and read back its one run.
// Test-only; not thread-safe (each test records into its own directory).
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "command_runner.h"
#include "nimble/core/run.h"
#include "nimble/core/trace.h"
#include "nimble/store/run_reader.h"

namespace nimble::collector::testing {

using ::nimble::testing::CommandResult;
using ::nimble::testing::RunCommand;

// Empty when a CUDA device is usable; otherwise why not.
inline std::string NoDeviceReason() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) return std::string("no CUDA device: ") + cudaGetErrorString(err);
  if (count == 0) return "no CUDA device";
  return {};
}

#define NIMBLE_SKIP_WITHOUT_GPU()                                                 \
  do {                                                                            \
    if (const std::string reason = ::nimble::collector::testing::NoDeviceReason(); \
        !reason.empty())                                                          \
      GTEST_SKIP() << reason;                                                     \
  } while (0)

struct RecordedRun {
  CommandResult command;
  std::string db;
  RunInfo run;
  Trace trace;
  std::vector<StatEntry> stats;
  bool loaded = false;

  int64_t Stat(const std::string& name) const {
    for (const StatEntry& s : stats) {
      if (s.name == name) return s.value;
    }
    return -1;
  }
  size_t RangesNamed(const std::string& text) const {
    size_t n = 0;
    for (const NvtxRange& r : trace.ranges) n += trace.strings.Get(r.text) == text ? 1 : 0;
    return n;
  }
  std::set<StreamId> KernelStreams() const {
    std::set<StreamId> s;
    for (const KernelRecord& k : trace.kernels) s.insert(k.stream);
    return s;
  }
};

// `nimble-prof record <record_flags> -o <fresh db> -- <sample> <sample_args>`, then the run, if any.
inline RecordedRun RecordSample(const std::string& sample, const std::vector<std::string>& sample_args,
                                const std::vector<std::string>& record_flags = {},
                                const std::string& env_prefix = "") {
  RecordedRun r;
  const auto dir = std::filesystem::temp_directory_path() /
                   ("nimble_gpu_" + std::to_string(getpid()) + "_" +
                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  r.db = (dir / "run.db").string();
  std::vector<std::string> args = {NIMBLE_PROF_PATH, "record", "-o", r.db};
  args.insert(args.end(), record_flags.begin(), record_flags.end());
  args.push_back("--");
  args.push_back(std::string(NIMBLE_SAMPLES_DIR) + "/" + sample);
  args.insert(args.end(), sample_args.begin(), sample_args.end());
  r.command = RunCommand(args, env_prefix);
  if (!std::filesystem::exists(r.db)) return r;
  auto reader = store::RunReader::Open(r.db);
  if (!reader.ok()) return r;
  auto runs = (*reader)->Runs();
  if (!runs.ok() || runs->size() != 1) return r;
  r.run = runs->front();
  auto trace = (*reader)->LoadTrace(r.run.id);
  auto stats = (*reader)->LoadStats(r.run.id);
  if (!trace.ok() || !stats.ok()) return r;
  r.trace = std::move(trace).value();
  r.stats = std::move(stats).value();
  r.loaded = true;
  return r;
}

}  // namespace nimble::collector::testing
