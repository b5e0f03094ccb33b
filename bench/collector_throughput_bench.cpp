// CPU throughput of the collector's record -> database path on synthetic CUPTI buffers: conversion
// alone, and the whole pipeline (buffer pool, pipeline thread, converter, StoreSink, SQLite commit).
// Each kernel launch is modelled as CUPTI reports it: one kernel, one runtime and one driver API record.
// Target (issue): >= 1 M kernels/s through the whole path without dropping records.
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>

#include "nimble/collector/activity_pipeline.h"
#include "nimble/collector/buffer_pool.h"
#include "nimble/collector/record_converter.h"
#include "nimble/collector/record_sink.h"
#include "nimble/collector/store_sink.h"
#include "nimble/collector/synthetic_records.h"

namespace nimble::collector {
namespace {

constexpr std::array<const char*, 4> kNames = {
    "_Z11spin_kernelx", "_Z5emptyv", "_ZN6nimble4test10add_kernelIfEEvPT_S2_i",
    "_ZN6nimble4test6reduceILi256EEEvPKfPfi"};
constexpr size_t kBufferBytes = size_t{4} << 20;  // the session's default buffer size
constexpr size_t kBytesPerLaunch = sizeof(KernelRecordV) + 2 * sizeof(ApiRecordV);

// One CUPTI buffer worth of launches, with timestamps and correlation ids that keep increasing; with
// `with_api` each launch also has its runtime and driver API records (all kinds), else only the kernel.
int64_t FillBuffer(synthetic::RecordBuffer& buffer, uint32_t& correlation, uint64_t& now_ns, bool with_api = true) {
  buffer.clear();
  int64_t launches = 0;
  while (buffer.size() + kBytesPerLaunch <= kBufferBytes) {
    const uint32_t c = ++correlation;
    if (with_api) {
      buffer.Add(synthetic::Api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, now_ns,
                                now_ns + 2000, c));
      buffer.Add(synthetic::Api(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, now_ns + 300,
                                now_ns + 1800, c));
    }
    buffer.Add(synthetic::Kernel(now_ns + 5000, now_ns + 6000, 7 + c % 4, c, kNames[c % kNames.size()]));
    now_ns += 2000;
    ++launches;
  }
  return launches;
}

void BM_ConvertBuffer(benchmark::State& state) {
  synthetic::RecordBuffer buffer;
  uint32_t correlation = 0;
  uint64_t now_ns = 1'000'000;
  const int64_t launches = FillBuffer(buffer, correlation, now_ns);
  RecordConverter converter;
  ActivityChunk chunk;
  for (auto _ : state) {
    converter.ConvertBuffer(buffer.data(), buffer.size(), chunk);
    benchmark::DoNotOptimize(chunk.kernels.data());
    chunk.clear();
  }
  state.SetItemsProcessed(state.iterations() * launches);
  state.counters["kernels_per_s"] = benchmark::Counter(static_cast<double>(state.iterations() * launches),
                                                       benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ConvertBuffer)->Unit(benchmark::kMillisecond);

// Counts what it is given: the pipeline's cost without the database's.
class CountingSink : public RecordSink {
 public:
  Status Consume(const ActivityChunk& chunk, const StringTable&) override {
    records += static_cast<int64_t>(chunk.size());
    return OkStatus();
  }
  Status Finish(const SessionSummary&, const StringTable&) override { return OkStatus(); }
  int64_t records = 0;
};

void BM_PipelineToNothing(benchmark::State& state) {
  const int64_t target_launches = state.range(0);
  synthetic::RecordBuffer buffer;
  uint32_t correlation = 0;
  uint64_t now_ns = 1'000'000;
  const int64_t per_buffer = FillBuffer(buffer, correlation, now_ns);
  int64_t launches = 0;
  for (auto _ : state) {
    CountingSink sink;
    BufferPool pool(kBufferBytes, 64);
    ActivityPipeline pipeline(sink, pool, ConverterOptions{});
    pipeline.Start();
    for (int64_t done = 0; done < target_launches; done += per_buffer) {
      uint8_t* b = nullptr;
      while ((b = pool.Acquire()) == nullptr) std::this_thread::yield();
      std::memcpy(b, buffer.data(), buffer.size());
      pipeline.Submit(b, buffer.size());
      launches += per_buffer;
    }
    if (!pipeline.Finish(CollectorStats{}, {}, {}).ok()) state.SkipWithError("pipeline failed");
  }
  state.SetItemsProcessed(launches);
  state.counters["kernels_per_s"] = benchmark::Counter(static_cast<double>(launches), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PipelineToNothing)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

// The whole path for `state.range(0)` launches (with API records when state.range(1) is 1): buffers go through the pool and the pipeline thread
// into a new database, committed at the end, as a session does. Each buffer is filled anew, so that
// timestamps and correlation ids keep increasing across buffers as CUPTI's do (a buffer submitted
// again and again would insert the same keys into the middle of every index). Producer waits
// (instead of CUPTI dropping) are counted: a non-zero count means the path did not keep up.
void BM_PipelineToDatabase(benchmark::State& state) {
  const int64_t target_launches = state.range(0);
  synthetic::RecordBuffer buffer;
  uint32_t correlation = 0;
  uint64_t now_ns = 1'000'000;
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("nimble_collector_bench_" + std::to_string(getpid()) + ".db")).string();
  int64_t launches = 0;
  int64_t waits = 0;
  for (auto _ : state) {
    std::filesystem::remove(path);
    RunInfo run;
    run.model = "bench";
    run.mode = RunMode::kProgram;
    auto sink = StoreSink::Create(path, run);
    if (!sink.ok()) {
      state.SkipWithError(sink.status().message().c_str());
      return;
    }
    BufferPool pool(kBufferBytes, 64);
    ActivityPipeline pipeline(**sink, pool, ConverterOptions{});
    pipeline.Start();
    for (int64_t done = 0; done < target_launches;) {
      const int64_t filled = FillBuffer(buffer, correlation, now_ns, state.range(1) != 0);
      uint8_t* b = nullptr;
      while ((b = pool.Acquire()) == nullptr) {
        ++waits;
        std::this_thread::yield();
      }
      std::memcpy(b, buffer.data(), buffer.size());
      pipeline.Submit(b, buffer.size());
      launches += filled;
      done += filled;
    }
    const Status s = pipeline.Finish(CollectorStats{}, {}, {});
    if (!s.ok()) state.SkipWithError(s.message().c_str());
  }
  std::filesystem::remove(path);
  state.SetItemsProcessed(launches);
  state.counters["kernels_per_s"] = benchmark::Counter(static_cast<double>(launches), benchmark::Counter::kIsRate);
  state.counters["producer_waits"] = static_cast<double>(waits);
}
BENCHMARK(BM_PipelineToDatabase)->Args({1'000'000, 1})->Args({1'000'000, 0})->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

}  // namespace
}  // namespace nimble::collector

BENCHMARK_MAIN();
