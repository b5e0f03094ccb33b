// How fast RunWriter stores kernel records: realistic records (about 100 distinct kernel names,
// increasing timestamps and correlation ids over a few streams) through the public API, delivered
// in buffers of 8192 records as a CUPTI collector would, Commit() included. The argument `configs` is
// the number of distinct launch configurations: 1000, as a model that launches 1000 different kernels
// per iteration and repeats them (the bundled Inception-v3 run has 76); or one per record, the worst
// case for the writer's configuration table. Files go to
// $NIMBLE_BENCH_DIR, else the system temp directory (it must be a real disk for honest figures).
#include <benchmark/benchmark.h>

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "nimble/store/run_writer.h"

namespace nimble::store {
namespace {

namespace fs = std::filesystem;

constexpr int kDistinctNames = 100;
constexpr size_t kDeliveryRecords = 8192;  // records per AppendKernels call

std::vector<KernelRecord> RealisticKernels(StringTable& strings, int64_t count, int64_t configs) {
  std::vector<KernelRecord> out;
  out.reserve(static_cast<size_t>(count));
  int64_t t_ns = 1'700'000'000'000'000'000;
  for (int64_t i = 0; i < count; ++i) {
    const int name = static_cast<int>((i * 37) % kDistinctNames);
    KernelRecord k;
    t_ns += 1500 + (i * 7919) % 4000;
    k.start_ns = t_ns;
    k.end_ns = t_ns + 2000 + (i * 104729) % 50000;
    k.device = DeviceId(0);
    k.context = ContextId(1);
    k.stream = StreamId(7 + i % 4);
    k.correlation = CorrelationId(1000 + 3 * i);
    k.name = strings.Intern("void at::native::kernel_" + std::to_string(name) +
                            "<float, 4, 128>(at::TensorIteratorBase&, float const*, float*, int)");
    k.short_name = strings.Intern("kernel_" + std::to_string(name));
    const int64_t c = i % configs;  // launch c of an iteration of `configs` launches
    k.grid = {static_cast<int32_t>(1 + (c * 31) % 4096), static_cast<int32_t>(1 + c / 4096), 1};
    k.block = {128 << (c % 3), 1, 1};
    k.registers_per_thread = static_cast<int32_t>(16 + c % 64);
    k.static_shared_bytes = static_cast<int32_t>((c % 4) * 4096);
    k.dynamic_shared_bytes = static_cast<int32_t>((c % 5) * 1024);
    out.push_back(k);
  }
  return out;
}

RunInfo BenchRun() {
  RunInfo run;
  run.model = "resnet50.pt";
  run.inputs = "1x3x224x224";
  run.device = "bench";
  run.mode = RunMode::kEager;
  run.command = "store_writer_bench";
  return run;
}

fs::path ScratchDir() {
  const char* env = std::getenv("NIMBLE_BENCH_DIR");
  std::string pattern = ((env != nullptr ? fs::path(env) : fs::temp_directory_path()) / "nimble_bench_XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) return {};
  return pattern;
}

// Writes `kernels` as one run of `path` through the public API, Commit() included.
bool WriteRun(const std::string& path, const std::vector<KernelRecord>& kernels, const StringTable& strings,
              int64_t batch_records) {
  auto writer = RunWriter::Create(path, BenchRun(), {.batch_records = batch_records});
  if (!writer.ok()) return false;
  const std::span<const KernelRecord> all(kernels);
  for (size_t next = 0; next < all.size(); next += kDeliveryRecords) {
    if (!(*writer)->AppendKernels(all.subspan(next, std::min(kDeliveryRecords, all.size() - next)), strings).ok()) {
      return false;
    }
  }
  return (*writer)->Commit().ok();
}

// A new file per iteration, built as <path>.partial and renamed by Commit(): the collector's case.
void BM_WriteKernelsNewFile(benchmark::State& state) {
  const int64_t batch_records = state.range(0);
  const int64_t records = state.range(1);
  StringTable strings;
  const auto kernels = RealisticKernels(strings, records, state.range(2));
  const fs::path dir = ScratchDir();
  int iteration = 0;
  double file_bytes = 0;
  for (auto _ : state) {
    const std::string path = (dir / ("run" + std::to_string(iteration++) + ".db")).string();
    if (!WriteRun(path, kernels, strings, batch_records)) state.SkipWithError("writing failed");
    state.PauseTiming();
    std::error_code ec;
    file_bytes = static_cast<double>(fs::file_size(path, ec));
    fs::remove(path);
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * records);
  state.counters["file_bytes_per_kernel"] = file_bytes / static_cast<double>(records);
  fs::remove_all(dir);
}

// A second run appended in place to a database that already holds one: indexes are kept up to
// date row by row.
void BM_AppendKernelsToExistingFile(benchmark::State& state) {
  const int64_t batch_records = state.range(0);
  const int64_t records = state.range(1);
  StringTable strings;
  const auto kernels = RealisticKernels(strings, records, state.range(2));
  const fs::path dir = ScratchDir();
  const std::string base = (dir / "base.db").string();
  if (!WriteRun(base, kernels, strings, batch_records)) state.SkipWithError("writing the first run failed");
  for (auto _ : state) {
    state.PauseTiming();
    const std::string path = (dir / "run.db").string();
    fs::copy_file(base, path, fs::copy_options::overwrite_existing);
    state.ResumeTiming();
    if (!WriteRun(path, kernels, strings, batch_records)) state.SkipWithError("appending failed");
  }
  state.SetItemsProcessed(state.iterations() * records);
  fs::remove_all(dir);
}

BENCHMARK(BM_WriteKernelsNewFile)
    ->ArgNames({"batch", "records", "configs"})
    ->Args({4096, 1 << 20, 1000})
    ->Args({65536, 1 << 20, 1000})
    ->Args({65536, 1 << 20, 1 << 20})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_AppendKernelsToExistingFile)
    ->ArgNames({"batch", "records", "configs"})
    ->Args({4096, 1 << 20, 1000})
    ->Args({65536, 1 << 20, 1000})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace nimble::store

BENCHMARK_MAIN();
