// RecordConverter on hand-built CUPTI records: every kind it keeps, every record it must count
// instead of keeping, and buffers walked with CUPTI's own iterator. No GPU needed.
#include "nimble/collector/record_converter.h"

#include <gtest/gtest.h>

#include <climits>

#include "nimble/collector/synthetic_records.h"

namespace nimble::collector {
namespace {

using synthetic::Api;
using synthetic::GraphTrace;
using synthetic::Kernel;
using synthetic::Marker;

const ActivityRecord& AsRecord(const auto& r) { return reinterpret_cast<const ActivityRecord&>(r); }

TEST(RecordConverterTest, ConvertsKernelWithNamesAndLaunchShape) {
  RecordConverter converter;
  ActivityChunk out;
  converter.Convert(AsRecord(Kernel(1000, 3500, 13, 42, "_ZN6nimble4test6reduceILi256EEEvPKfPfi")), out);
  ASSERT_EQ(out.kernels.size(), 1u);
  const KernelRecord& k = out.kernels[0];
  EXPECT_EQ(k.start_ns, 1000);
  EXPECT_EQ(k.end_ns, 3500);
  EXPECT_EQ(k.dur_ns(), 2500);
  EXPECT_EQ(k.stream, StreamId(13));
  EXPECT_EQ(k.correlation, CorrelationId(42));
  EXPECT_EQ(k.device, DeviceId(0));
  EXPECT_EQ(k.context, ContextId(1));
  EXPECT_EQ(converter.strings().Get(k.name), "void nimble::test::reduce<256>(float const*, float*, int)");
  EXPECT_EQ(converter.strings().Get(k.short_name), "reduce");
  EXPECT_EQ(k.grid, (Dim3{80, 1, 1}));
  EXPECT_EQ(k.block, (Dim3{256, 1, 1}));
  EXPECT_EQ(k.registers_per_thread, 32);
  EXPECT_EQ(k.static_shared_bytes, 1024);
  EXPECT_EQ(k.dynamic_shared_bytes, 2048);
  EXPECT_EQ(k.graph_node_id, 0);
  EXPECT_EQ(converter.stats().kernels, 1);
}

TEST(RecordConverterTest, KeepsEveryKernelReplayedFromAGraph) {
  // A graph launch: one correlation id, one kernel per graph node, a driver-internal stream.
  RecordConverter converter;
  ActivityChunk out;
  for (uint64_t node = 1; node <= 3; ++node) {
    converter.Convert(AsRecord(Kernel(100 * node, 100 * node + 50, 99, 7, "_Z5emptyv", 0x1000 + node)), out);
  }
  ASSERT_EQ(out.kernels.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(out.kernels[i].correlation, CorrelationId(7));
    EXPECT_EQ(out.kernels[i].graph_node_id, static_cast<int64_t>(0x1001 + i));
    EXPECT_EQ(out.kernels[i].graph_id, 7);
  }
}

TEST(RecordConverterTest, ConvertsGraphLevelRecordsOfWholeGraphLaunches) {
  // --graph-trace graph: one record per launch of a graph, none for its nodes.
  synthetic::RecordBuffer buffer;
  buffer.Add(GraphTrace(1000, 9000, 13, 42, 5));
  buffer.Add(GraphTrace(9500, 9400, 13, 43, 5));  // ends before it starts: counted, not kept
  GraphTraceRecordV host_first = GraphTrace(10000, 12000, 13, 44, 6);
  host_first.deviceId = INT_MAX;  // the graph starts with a host node
  host_first.contextId = INT_MAX;
  buffer.Add(host_first);
  RecordConverter converter;
  ActivityChunk out;
  EXPECT_EQ(converter.ConvertBuffer(buffer.data(), buffer.size(), out), 3);
  ASSERT_EQ(out.graph_launches.size(), 2u);
  const GraphLaunchRecord& g = out.graph_launches[0];
  EXPECT_EQ(g.start_ns, 1000);
  EXPECT_EQ(g.end_ns, 9000);
  EXPECT_EQ(g.device, DeviceId(0));
  EXPECT_EQ(g.context, ContextId(1));
  EXPECT_EQ(g.stream, StreamId(13));
  EXPECT_EQ(g.correlation, CorrelationId(42));
  EXPECT_EQ(g.graph_id, 5);
  EXPECT_FALSE(out.graph_launches[1].device.valid());
  EXPECT_FALSE(out.graph_launches[1].context.valid());
  EXPECT_EQ(out.graph_launches[1].graph_id, 6);
  EXPECT_TRUE(out.kernels.empty());
  EXPECT_EQ(converter.stats().graph_launches, 2);
  EXPECT_EQ(converter.stats().incomplete_records, 1);
  EXPECT_EQ(converter.stats().unknown_kind_records, 0);
}

TEST(RecordConverterTest, ConvertsMemcpyMemsetAndSync) {
  RecordConverter converter;
  ActivityChunk out;
  MemcpyRecordV copy{};
  copy.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  copy.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
  copy.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
  copy.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  copy.bytes = 1 << 20;
  copy.start = 10;
  copy.end = 30;
  copy.streamId = 7;
  copy.correlationId = 5;
  converter.Convert(AsRecord(copy), out);
  MemsetRecordV set{};
  set.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  set.value = 0xab;
  set.bytes = 4096;
  set.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  set.start = 40;
  set.end = 45;
  converter.Convert(AsRecord(set), out);
  SyncRecordV stream_sync{};
  stream_sync.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  stream_sync.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
  stream_sync.start = 50;
  stream_sync.end = 90;
  stream_sync.streamId = 13;
  SyncRecordV context_sync = stream_sync;
  context_sync.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
  converter.Convert(AsRecord(stream_sync), out);
  converter.Convert(AsRecord(context_sync), out);

  ASSERT_EQ(out.memcpys.size(), 1u);
  EXPECT_EQ(out.memcpys[0].copy_kind, CopyKind::kHtoD);
  EXPECT_EQ(out.memcpys[0].src_kind, MemoryKind::kPageable);
  EXPECT_EQ(out.memcpys[0].dst_kind, MemoryKind::kDevice);
  EXPECT_EQ(out.memcpys[0].bytes, 1 << 20);
  EXPECT_EQ(out.memcpys[0].stream, StreamId(7));
  ASSERT_EQ(out.memsets.size(), 1u);
  EXPECT_EQ(out.memsets[0].value, 0xab);
  EXPECT_EQ(out.memsets[0].mem_kind, MemoryKind::kDevice);
  ASSERT_EQ(out.syncs.size(), 2u);
  EXPECT_EQ(out.syncs[0].kind, SyncKind::kStreamSynchronize);
  EXPECT_EQ(out.syncs[0].stream, StreamId(13));
  EXPECT_EQ(out.syncs[1].kind, SyncKind::kContextSynchronize);
  EXPECT_FALSE(out.syncs[1].stream.valid());  // a context-wide sync belongs to no stream
}

TEST(RecordConverterTest, NamesRuntimeAndDriverCallsByCallbackId) {
  RecordConverter converter;
  ActivityChunk out;
  converter.Convert(
      AsRecord(Api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 100, 900, 11)), out);
  converter.Convert(AsRecord(Api(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 200, 800, 11)),
                    out);
  ASSERT_EQ(out.api_calls.size(), 2u);
  EXPECT_EQ(out.api_calls[0].kind, ApiKind::kRuntime);
  EXPECT_EQ(converter.strings().Get(out.api_calls[0].name), "cudaLaunchKernel_v7000");
  EXPECT_EQ(out.api_calls[0].thread, ThreadId(1234));
  EXPECT_EQ(out.api_calls[0].process, 4321);
  EXPECT_EQ(out.api_calls[1].kind, ApiKind::kDriver);
  EXPECT_EQ(converter.strings().Get(out.api_calls[1].name), "cuLaunchKernel");
  EXPECT_EQ(out.api_calls[1].correlation, out.api_calls[0].correlation);
  EXPECT_EQ(converter.stats().runtime_calls, 1);
  EXPECT_EQ(converter.stats().driver_calls, 1);
}

TEST(RecordConverterTest, PairsMarkersIntoRangesAndCountsIterations) {
  RecordConverter converter(ConverterOptions{.iteration_range = "iteration"});
  ActivityChunk out;
  converter.Convert(AsRecord(Marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 1, 100, "iteration")), out);
  converter.Convert(AsRecord(Marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 2, 150, "forward", 77, "app")), out);
  converter.Convert(AsRecord(Marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 2, 180, nullptr, 77)), out);
  converter.Convert(AsRecord(Marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 1, 200, nullptr)), out);
  converter.Convert(AsRecord(Marker(CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS, 3, 250, "checkpoint")), out);
  ASSERT_EQ(out.ranges.size(), 3u);
  EXPECT_EQ(converter.strings().Get(out.ranges[0].text), "forward");
  EXPECT_EQ(converter.strings().Get(out.ranges[0].domain), "app");
  EXPECT_EQ(out.ranges[0].thread, ThreadId(77));
  EXPECT_EQ(out.ranges[1].start_ns, 100);
  EXPECT_EQ(out.ranges[1].end_ns, 200);
  EXPECT_FALSE(out.ranges[1].domain.valid());  // the default domain
  EXPECT_EQ(out.ranges[2].start_ns, out.ranges[2].end_ns);
  EXPECT_EQ(converter.stats().iterations, 1);
  EXPECT_EQ(converter.stats().nvtx_ranges, 3);
}

TEST(RecordConverterTest, CountsUnmatchedMarkersInsteadOfGuessing) {
  RecordConverter converter;
  ActivityChunk out;
  converter.Convert(AsRecord(Marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 9, 100, nullptr)), out);   // start not captured
  converter.Convert(AsRecord(Marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 10, 120, "open")), out);  // never ended
  converter.Convert(AsRecord(Marker(CUPTI_ACTIVITY_FLAG_MARKER_SYNC_ACQUIRE, 11, 130, "lock")), out);
  converter.Finish();
  EXPECT_TRUE(out.ranges.empty());
  EXPECT_EQ(converter.stats().unmatched_marker_ends, 1);
  EXPECT_EQ(converter.stats().unmatched_marker_starts, 1);
  EXPECT_EQ(converter.stats().other_markers, 1);
}

TEST(RecordConverterTest, CountsRecordsItCannotKeep) {
  RecordConverter converter;
  ActivityChunk out;
  converter.Convert(AsRecord(Kernel(0, 0, 7, 1, "_Z5emptyv")), out);        // never timed
  converter.Convert(AsRecord(Kernel(500, 400, 7, 2, "_Z5emptyv")), out);    // ends before it starts
  CUpti_ActivityContext3 context{};
  context.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
  converter.Convert(AsRecord(context), out);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(converter.stats().incomplete_records, 2);
  EXPECT_EQ(converter.stats().unknown_kind_records, 1);
}

TEST(RecordConverterTest, WalksABufferWithCuptisIterator) {
  synthetic::RecordBuffer buffer;
  buffer.Add(Api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 100, 900, 1));
  buffer.Add(Kernel(1000, 2000, 7, 1, "_Z11spin_kernelx"));
  CUpti_ActivityContext3 context{};
  context.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
  buffer.Add(context);
  buffer.Add(Marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 1, 50, "iteration"));
  buffer.Add(Marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 1, 2500, nullptr));
  buffer.Add(Kernel(3000, 4000, 8, 2, "_Z11spin_kernelx"));

  RecordConverter converter;
  ActivityChunk out;
  EXPECT_EQ(converter.ConvertBuffer(buffer.data(), buffer.size(), out), 6);
  ASSERT_EQ(out.kernels.size(), 2u);
  EXPECT_EQ(out.kernels[1].stream, StreamId(8));
  EXPECT_EQ(out.api_calls.size(), 1u);
  EXPECT_EQ(out.ranges.size(), 1u);
  EXPECT_EQ(converter.stats().unknown_kind_records, 1);
  EXPECT_EQ(converter.stats().buffers_completed, 1);
  EXPECT_EQ(converter.stats().buffer_bytes_delivered, static_cast<int64_t>(buffer.size()));
  EXPECT_EQ(converter.stats().buffer_errors, 0);
  // Both launches of the same kernel share one interned name.
  EXPECT_EQ(out.kernels[0].name, out.kernels[1].name);
}

TEST(RecordConverterTest, CountsABufferThatEndsInAnUnreadableRecord) {
  synthetic::RecordBuffer buffer;
  buffer.Add(Kernel(1000, 2000, 7, 1, "_Z5emptyv"));
  ActivityRecord bogus{};
  bogus.kind = static_cast<CUpti_ActivityKind>(0x7ffffff0);
  buffer.Add(Kernel(0, 0, 0, 0, nullptr));
  std::memcpy(buffer.data() + sizeof(KernelRecordV), &bogus, sizeof(bogus));
  RecordConverter converter;
  ActivityChunk out;
  converter.ConvertBuffer(buffer.data(), buffer.size(), out);
  EXPECT_EQ(out.kernels.size(), 1u);
  EXPECT_EQ(converter.stats().buffer_errors, 1);
}

}  // namespace
}  // namespace nimble::collector
