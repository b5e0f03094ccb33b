// The torch.profiler (Kineto) reader on the hand-written fixtures in tests/workflow/data/kineto/: every
// record kind with its fields, exact nanosecond times, links (flows, External ids), ProfilerStep
// iterations, what the sources lack as warnings; and gzip giving the same trace as plain text.
#include "kineto_reader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "import_test_support.h"
#include "kineto_converter.h"
#include "kineto_parallel.h"

namespace nimble::workflow {
namespace {

const std::string kData = std::string(NIMBLE_SOURCE_DIR) + "/tests/workflow/data/kineto/";

const StatEntry* FindStat(const ImportedTrace& t, const std::string& name) {
  for (const StatEntry& s : t.stats) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

ImportedTrace Read(const std::string& name) {
  auto read = ReadKinetoTrace(kData + name);
  EXPECT_TRUE(read.ok()) << read.status().ToString();
  return read.ok() ? std::move(*read) : ImportedTrace{};
}

// profiler_steps.json: baseTimeNanoseconds 1700000000000000000 and ts 198093000xxx.yyy µs.
constexpr int64_t kBase = 1700000000000000000 + 198093000000000;
int64_t At(int64_t relative_ns) { return kBase + relative_ns; }

TEST(KinetoReaderTest, ProfilerStepsFixtureGivesEveryRecordKind) {
  const ImportedTrace t = Read("profiler_steps.json");
  const Trace& tr = t.trace;
  EXPECT_EQ(t.source_format, "kineto-json");
  EXPECT_EQ(t.iteration_range, "ProfilerStep");
  EXPECT_EQ(t.run.iterations, 2);
  EXPECT_EQ(t.run.device, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(t.run.created_unix_s, 1700000000);
  ASSERT_EQ(tr.kernels.size(), 5u);
  ASSERT_EQ(tr.memsets.size(), 1u);
  ASSERT_EQ(tr.memcpys.size(), 1u);
  ASSERT_EQ(tr.syncs.size(), 1u);
  ASSERT_EQ(tr.api_calls.size(), 7u);
  // 11 CPU ops, a Python function, two steps, "forward" on the host and on the GPU.
  EXPECT_EQ(tr.ranges.size(), 16u);
  EXPECT_EQ(tr.external_correlations.size(), 7u);

  const KernelRecord& gemm = tr.kernels[0];  // records are in time order
  EXPECT_EQ(gemm.start_ns, At(112125));
  EXPECT_EQ(gemm.end_ns, At(132125));
  EXPECT_EQ(gemm.device, DeviceId(0));
  EXPECT_EQ(gemm.stream, StreamId(7));
  EXPECT_EQ(gemm.context, ContextId(1));
  EXPECT_EQ(gemm.correlation, CorrelationId(1001));
  EXPECT_EQ(gemm.grid, (Dim3{128, 1, 1}));
  EXPECT_EQ(gemm.block, (Dim3{256, 1, 1}));
  EXPECT_EQ(gemm.registers_per_thread, 128);
  EXPECT_EQ(gemm.static_shared_bytes + gemm.dynamic_shared_bytes, 99328);
  EXPECT_EQ(gemm.graph_node_id, 0);
  EXPECT_EQ(tr.strings.Get(gemm.short_name), "Kernel2");
  EXPECT_EQ(tr.kernels[3].stream, StreamId(13));

  const MemcpyRecord& copy = tr.memcpys[0];
  EXPECT_EQ(copy.start_ns, At(101800));
  EXPECT_EQ(copy.end_ns, At(103000));
  EXPECT_EQ(copy.copy_kind, CopyKind::kHtoD);
  EXPECT_EQ(copy.src_kind, MemoryKind::kPageable);
  EXPECT_EQ(copy.dst_kind, MemoryKind::kDevice);
  EXPECT_EQ(copy.bytes, 4096);
  EXPECT_EQ(tr.memsets[0].mem_kind, MemoryKind::kDevice);
  EXPECT_EQ(tr.memsets[0].bytes, 1024);

  const SyncRecord& sync = tr.syncs[0];
  EXPECT_EQ(sync.kind, SyncKind::kStreamSynchronize);
  EXPECT_EQ(sync.stream, StreamId(7));
  EXPECT_EQ(sync.correlation, CorrelationId(1003));
  EXPECT_EQ(sync.start_ns, At(141500));
  EXPECT_EQ(sync.end_ns, At(157500));

  const ApiCallRecord& memset_call = tr.api_calls[0];
  EXPECT_EQ(tr.strings.Get(memset_call.name), "cudaMemsetAsync");
  EXPECT_EQ(memset_call.kind, ApiKind::kRuntime);
  EXPECT_EQ(memset_call.thread, ThreadId(4242));
  EXPECT_EQ(memset_call.process, 4242);
  EXPECT_EQ(memset_call.callback_id, 51);
  EXPECT_EQ(memset_call.start_ns, At(100100));

  // The addmm of step 1 (External id 8) launched correlation 1001.
  EXPECT_NE(std::find(tr.external_correlations.begin(), tr.external_correlations.end(),
                      ExternalCorrelation{CorrelationId(1001), 8, kTorchOpExternalKind}),
            tr.external_correlations.end());

  int steps = 0, cpu_ops = 0, gpu_annotations = 0;
  for (const NvtxRange& r : tr.ranges) {
    const std::string& text = tr.strings.Get(r.text);
    const std::string& domain = tr.strings.Get(r.domain);
    if (text == "ProfilerStep") {
      ++steps;
      EXPECT_EQ(domain, "torch.user_annotation");
      EXPECT_EQ(r.thread, ThreadId(4242));
    }
    if (domain == "torch.cpu_op") ++cpu_ops;
    if (!r.thread.valid()) ++gpu_annotations;
  }
  EXPECT_EQ(steps, 2);
  EXPECT_EQ(cpu_ops, 12);  // 11 aten ops and the Python function
  EXPECT_EQ(gpu_annotations, 1);

  ASSERT_EQ(tr.devices.size(), 1u);
  EXPECT_EQ(tr.devices[0].sm_count, 132);
  EXPECT_EQ(tr.devices[0].max_threads_per_sm, 2048);
  EXPECT_EQ(tr.devices[0].max_registers_per_sm, 65536);
  EXPECT_EQ(tr.devices[0].max_shared_bytes_per_sm, 233472);
  EXPECT_EQ(tr.devices[0].compute_major, 9);

  // The one kernel without a launch (a Triton kernel whose call was not recorded) is counted.
  const StatEntry* unlaunched = FindStat(t, "import.kernels_without_launch");
  ASSERT_NE(unlaunched, nullptr);
  EXPECT_EQ(unlaunched->value, 1);
  EXPECT_EQ(unlaunched->severity, Severity::kWarning);
  EXPECT_EQ(FindStat(t, "import.no_device_properties"), nullptr);
  EXPECT_EQ(FindStat(t, "import.no_sync_records"), nullptr);
  EXPECT_EQ(FindStat(t, "import.events_missing_fields"), nullptr);
  ASSERT_NE(FindStat(t, "import.events_read"), nullptr);
  EXPECT_EQ(FindStat(t, "import.events_read")->value, 55);
  // Kineto's own span marker is skipped quietly; metadata and instants are counted as info.
  ASSERT_NE(FindStat(t, "import.skipped_category.Trace"), nullptr);
  EXPECT_EQ(FindStat(t, "import.skipped_category.Trace")->severity, Severity::kInfo);
  ASSERT_NE(FindStat(t, "import.skipped_phase.M"), nullptr);
  EXPECT_EQ(FindStat(t, "import.skipped_phase.M")->value, 7);
  EXPECT_EQ(FindStat(t, "import.skipped_phase.i")->value, 2);
}

TEST(KinetoReaderTest, CudaGraphFixtureKeepsGraphNodesAndRecoversCorrelationsFromFlows) {
  const ImportedTrace t = Read("cuda_graph.json");
  const Trace& tr = t.trace;
  EXPECT_EQ(t.iteration_range, "");
  ASSERT_EQ(tr.kernels.size(), 8u);
  // No baseTimeNanoseconds: ts is absolute, and .125 µs survives at 19 significant digits.
  EXPECT_EQ(tr.kernels[0].start_ns, int64_t{1740461679000020125});
  EXPECT_EQ(tr.kernels[0].graph_node_id, 10);
  EXPECT_EQ(tr.kernels[0].graph_id, 1);
  EXPECT_EQ(tr.kernels[0].correlation, CorrelationId(3001));
  // The second replay's sgemm has no args.correlation; its ac2g flow names the graph launch.
  EXPECT_EQ(tr.kernels[4].graph_node_id, 11);
  EXPECT_EQ(tr.kernels[4].correlation, CorrelationId(3002));
  EXPECT_EQ(tr.kernels[6].graph_node_id, 0);
  const StatEntry* by_flow = FindStat(t, "import.kernels_correlated_by_flow");
  ASSERT_NE(by_flow, nullptr);
  EXPECT_EQ(by_flow->value, 1);
  EXPECT_EQ(FindStat(t, "import.kernels_without_launch"), nullptr);
  // A driver launch, the graph launches and the rest.
  ASSERT_EQ(tr.api_calls.size(), 6u);
  EXPECT_EQ(std::count_if(tr.api_calls.begin(), tr.api_calls.end(),
                          [](const ApiCallRecord& a) { return a.kind == ApiKind::kDriver; }),
            1);
  ASSERT_EQ(tr.memcpys.size(), 1u);
  EXPECT_EQ(tr.memcpys[0].copy_kind, CopyKind::kDtoD);
  ASSERT_EQ(tr.syncs.size(), 1u);
  EXPECT_EQ(tr.syncs[0].kind, SyncKind::kEventSynchronize);
  EXPECT_FALSE(tr.syncs[0].stream.valid());  // stream -1: not a stream
  EXPECT_EQ(tr.syncs[0].event_id, 5);
  // What this older trace lacks.
  const StatEntry* no_props = FindStat(t, "import.no_device_properties");
  ASSERT_NE(no_props, nullptr);
  EXPECT_EQ(no_props->severity, Severity::kWarning);
  EXPECT_TRUE(tr.devices.empty());
  EXPECT_EQ(t.run.device, "");
}

TEST(KinetoReaderTest, GzipGivesTheSameTraceAsPlainText) {
  const ImportedTrace plain = Read("profiler_steps.json");
  const ImportedTrace gzip = Read("profiler_steps.json.gz");
  EXPECT_EQ(gzip.trace.kernels, plain.trace.kernels);
  EXPECT_EQ(gzip.trace.memcpys, plain.trace.memcpys);
  EXPECT_EQ(gzip.trace.memsets, plain.trace.memsets);
  EXPECT_EQ(gzip.trace.syncs, plain.trace.syncs);
  EXPECT_EQ(gzip.trace.api_calls, plain.trace.api_calls);
  EXPECT_EQ(gzip.trace.ranges, plain.trace.ranges);
  EXPECT_EQ(gzip.trace.external_correlations, plain.trace.external_correlations);
  EXPECT_EQ(gzip.trace.devices, plain.trace.devices);
  EXPECT_EQ(gzip.trace.strings.strings(), plain.trace.strings.strings());
  EXPECT_EQ(gzip.stats, plain.stats);
}

// A trace of several parallel chunks (the fixture's events 400 times over, 5.6 MB) and the fixtures
// themselves read the same on one thread and on several.
TEST(KinetoReaderTest, ParallelReadGivesTheSequentialTrace) {
  const std::string fixture = testing_support::ReadBytes(kData + "profiler_steps.json");
  const size_t open = fixture.find('[', fixture.find("\"traceEvents\""));
  const size_t close = fixture.rfind(']');
  const std::string events = fixture.substr(open + 1, close - open - 1);
  std::string big = fixture.substr(0, open + 1);
  for (int i = 0; i < 400; ++i) big += (i ? "," : "") + events;
  big += fixture.substr(close);
  const std::string path = ::testing::TempDir() + "kineto_parallel_" + std::to_string(::getpid()) + ".json";
  testing_support::WriteBytes(path, big);
  for (const std::string& file : {path, kData + "profiler_steps.json", kData + "profiler_steps.json.gz",
                                  kData + "cuda_graph.json"}) {
    SCOPED_TRACE(file);
    auto one = ReadKinetoTrace(file, 1);
    auto many = ReadKinetoTrace(file, 4);
    ASSERT_TRUE(one.ok()) << one.status().ToString();
    ASSERT_TRUE(many.ok()) << many.status().ToString();
    EXPECT_EQ(many->trace.kernels, one->trace.kernels);
    EXPECT_EQ(many->trace.memcpys, one->trace.memcpys);
    EXPECT_EQ(many->trace.syncs, one->trace.syncs);
    EXPECT_EQ(many->trace.api_calls, one->trace.api_calls);
    EXPECT_EQ(many->trace.ranges, one->trace.ranges);
    EXPECT_EQ(many->trace.external_correlations, one->trace.external_correlations);
    EXPECT_EQ(many->trace.devices, one->trace.devices);
    EXPECT_EQ(many->trace.strings.strings(), one->trace.strings.strings());
    EXPECT_EQ(many->stats, one->stats);
    EXPECT_EQ(many->run, one->run);
  }
  auto big_read = ReadKinetoTrace(path, 4);
  ASSERT_TRUE(big_read.ok());
  EXPECT_EQ(big_read->trace.kernels.size(), 400u * 5);
  EXPECT_EQ(big_read->run.iterations, 800);
  std::remove(path.c_str());
}

// `text` read twice from a file: by the one-thread read, and by the parallel read itself (not the
// sequential read it falls back to when it cannot split a file: `parallel` says whether it could).
struct TwoReads {
  StatusOr<ImportedTrace> one = ImportedTrace{};
  StatusOr<ImportedTrace> many = ImportedTrace{};
  bool parallel = false;
  int64_t events = 0;
};
TwoReads ReadOneAndParallel(const std::string& text, const std::string& name) {
  const std::string path = ::testing::TempDir() + name + "_" + std::to_string(::getpid()) + ".json";
  testing_support::WriteBytes(path, text);
  TwoReads reads;
  reads.one = ReadKinetoTrace(path, 1);
  KinetoConverter parallel(path);
  reads.parallel = ReadKinetoInParallel(path, 4, parallel, reads.events);
  if (reads.parallel) reads.many = parallel.Finish(reads.events);
  std::remove(path.c_str());
  return reads;
}

// The parallel read's splitter skips strings a run at a time and reads its file in 1 MiB blocks: escapes
// (an escaped backslash, then an escaped quote) and brackets inside a name that spans a block's end, at
// each of the five places the end can fall in the escape pattern, still split where the JSON does.
TEST(KinetoReaderTest, ParallelReadSplitsEscapedStringsAcrossItsBlocks) {
  std::string pattern;
  for (int i = 0; i < 250000; ++i) pattern += "\\\\\\\"{";  // the JSON text \\\"{ : a backslash, a quote, a brace
  std::string decoded;
  for (int i = 0; i < 250000; ++i) decoded += "\\\"{";
  auto op = [](const std::string& name, int i) {
    return "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"" + name + "\",\"pid\":1,\"tid\":1,\"ts\":" +
           std::to_string(10 + i) + ",\"dur\":1}";
  };
  for (int shift = 0; shift < 5; ++shift) {
    SCOPED_TRACE(shift);
    std::string text =
        std::string(static_cast<size_t>(shift), ' ') + "{\"traceEvents\":[" + op("a{[" + pattern + "]}", 0);
    for (int i = 1; i < 20000; ++i) text += "," + op(i % 3 == 0 ? "q\\\"[{" : "aten::mm", i);
    text += "]}";
    TwoReads reads = ReadOneAndParallel(text, "kineto_escapes");
    ASSERT_TRUE(reads.parallel);
    auto& one = reads.one;
    auto& many = reads.many;
    ASSERT_TRUE(one.ok()) << one.status().ToString();
    ASSERT_TRUE(many.ok()) << many.status().ToString();
    ASSERT_EQ(one->trace.ranges.size(), 20000u);
    EXPECT_EQ(one->trace.strings.Get(one->trace.ranges[0].text), "a{[" + decoded + "]}");
    EXPECT_EQ(one->trace.strings.Get(one->trace.ranges[3].text), "q\"[{");
    EXPECT_EQ(many->trace.ranges, one->trace.ranges);
    EXPECT_EQ(many->trace.strings.strings(), one->trace.strings.strings());
  }
}

// The splitter reads 64 bytes at a time inside an event when they hold no backslash, telling brackets in
// strings from the event's own by the quotes' parity: names full of brackets and quotes-free text of every
// length (so that strings, brackets and an event's end fall at every place in a 64-byte window) split
// where the JSON does, and the parallel read gives the sequential one's trace.
TEST(KinetoReaderTest, ParallelReadSplitsBracketsInStringsAtEveryPlaceOfItsWindow) {
  std::string text = "{\"traceEvents\":[";
  const std::string brackets = "]}[{]]}}";
  for (int i = 0; i < 3000; ++i) {
    std::string name = "op" + std::string(static_cast<size_t>(i % 67), 'x') + brackets.substr(0, i % 9);
    text += std::string(i ? "," : "") + "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"" + name +
            "\",\"pid\":1,\"tid\":1,\"ts\":" + std::to_string(10 + i) + ",\"dur\":1,\"args\":{\"Input Dims\":[[" +
            std::to_string(i % 5) + "],[]],\"Input type\":[\"" + brackets.substr(i % 7) + "\"]}}";
  }
  text += "],\"deviceProperties\":[{\"id\":0,\"name\":\"[{GPU}]\"}]}";
  TwoReads reads = ReadOneAndParallel(text, "kineto_brackets");
  ASSERT_TRUE(reads.parallel);
  EXPECT_EQ(reads.events, 3000);
  auto& one = reads.one;
  auto& many = reads.many;
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  ASSERT_TRUE(many.ok()) << many.status().ToString();
  ASSERT_EQ(one->trace.ranges.size(), 3000u);
  EXPECT_EQ(one->trace.strings.Get(one->trace.ranges[8].text), "op" + std::string(8, 'x') + "]}[{]]}}");
  EXPECT_EQ(many->trace.ranges, one->trace.ranges);
  EXPECT_EQ(many->trace.strings.strings(), one->trace.strings.strings());
  EXPECT_EQ(many->trace.devices, one->trace.devices);
}

}  // namespace
}  // namespace nimble::workflow
