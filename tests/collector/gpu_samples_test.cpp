// On the GPU: each sample recorded with `nimble-prof record` must come back from the database with
// exactly the kernels, streams and NVTX ranges it launched, nothing dropped, and the overlap and
// idle gaps (with their causes) that it was built to have. Skips cleanly without a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "gpu_test_support.h"
#include "nimble/core/median.h"

namespace nimble::collector::testing {
namespace {

// The runtime API call that launched each correlation id (graph replays: one per replay), by a part
// of its name: "LaunchKernel" matches cudaLaunchKernel_v7000 and the versions that may follow it.
std::map<int64_t, const ApiCallRecord*> LaunchesByCorrelation(const Trace& t, const std::string& api_part) {
  std::map<int64_t, const ApiCallRecord*> out;
  for (const ApiCallRecord& a : t.api_calls) {
    if (a.kind == ApiKind::kRuntime && t.strings.Get(a.name).find(api_part) != std::string::npos) {
      out[a.correlation.value()] = &a;
    }
  }
  return out;
}

void ExpectCleanRun(const RecordedRun& r) {
  ASSERT_TRUE(r.loaded) << r.command.output;
  EXPECT_EQ(r.command.exit_code, 0) << r.command.output;
  EXPECT_EQ(r.Stat("collector.dropped_records"), 0);
  EXPECT_EQ(r.Stat("collector.records_lost_in_sink"), 0);
  EXPECT_EQ(r.Stat("collector.buffer_errors"), 0);
  EXPECT_EQ(r.Stat("collector.incomplete_records"), 0);
  EXPECT_EQ(r.Stat("collector.cupti_errors"), 0);
  EXPECT_EQ(r.Stat("collector.status"), 0);
  EXPECT_EQ(r.run.mode, RunMode::kProgram);
  EXPECT_FALSE(r.run.device.empty());
  ASSERT_FALSE(r.trace.devices.empty());
  EXPECT_GT(r.trace.devices[0].sm_count, 0);
  EXPECT_GT(r.trace.devices[0].max_threads_per_sm, 0);
}

TEST(GpuSamplesTest, ConcurrentStreamsOverlapWithinEachIteration) {
  NIMBLE_SKIP_WITHOUT_GPU();
  const auto r = RecordSample("concurrent_streams", {"--streams", "4", "--iterations", "10", "--warmup", "1"},
                              {"--iteration-range", "iteration"});
  ExpectCleanRun(r);
  ASSERT_EQ(r.trace.kernels.size(), 4u * 11);
  EXPECT_EQ(r.KernelStreams().size(), 4u);
  EXPECT_EQ(r.RangesNamed("iteration"), 10u);
  EXPECT_EQ(r.trace.ranges.size(), 10u);
  EXPECT_EQ(r.run.iterations, 10);
  const auto launches = LaunchesByCorrelation(r.trace, "LaunchKernel");
  for (const KernelRecord& k : r.trace.kernels) {
    EXPECT_EQ(r.trace.strings.Get(k.short_name), "SpinKernel");
    EXPECT_TRUE(launches.contains(k.correlation.value())) << "kernel without its launch call";
  }
  for (const NvtxRange& it : r.trace.ranges) {  // the 4 kernels of one iteration run at the same time
    int64_t latest_start = 0, earliest_end = INT64_MAX;
    int inside = 0;
    for (const KernelRecord& k : r.trace.kernels) {
      if (k.start_ns < it.start_ns || k.end_ns > it.end_ns) continue;
      latest_start = std::max(latest_start, k.start_ns);
      earliest_end = std::min(earliest_end, k.end_ns);
      ++inside;
    }
    EXPECT_EQ(inside, 4);
    EXPECT_LT(latest_start, earliest_end) << "kernels of one iteration did not overlap";
  }
  const auto count = [&](SyncKind kind) {
    return std::count_if(r.trace.syncs.begin(), r.trace.syncs.end(), [kind](const SyncRecord& s) { return s.kind == kind; });
  };
  EXPECT_GE(count(SyncKind::kStreamWaitEvent), 1);   // the fork/join waits
  EXPECT_GE(count(SyncKind::kStreamSynchronize), 11);  // one per round
  EXPECT_EQ(r.Stat("collector.kernel_timestamps"), 0);  // software, the default
  EXPECT_EQ(r.Stat("collector.hardware_timestamps_refused"), -1) << "written only when hardware was asked for";
}

// --kernel-timestamps hardware: on a Blackwell GPU the kernels carry the hardware event system's
// timestamps; elsewhere CUPTI refuses them (once the driver has initialised: the injection library
// asks again then) and the run is recorded as usual, with software timestamps and a warning.
TEST(GpuSamplesTest, HardwareKernelTimestampsWhereTheGpuHasThem) {
  NIMBLE_SKIP_WITHOUT_GPU();
  // Alone, the session subscribes to CUPTI's callbacks only to hear that the driver has initialised;
  // with a capture range, the NVTX range callbacks share that one subscriber.
  for (const bool capture_range : {false, true}) {
    SCOPED_TRACE(capture_range ? "with a capture range" : "the whole run");
    std::vector<std::string> flags = {"--kernel-timestamps", "hardware"};
    if (capture_range) flags.insert(flags.end(), {"--capture-range", "iteration"});
    const auto r = RecordSample("concurrent_streams", {"--streams", "4", "--iterations", "5", "--warmup", "2"}, flags);
    ExpectCleanRun(r);
    // The warm-up rounds ran outside any range.
    ASSERT_EQ(r.trace.kernels.size(), capture_range ? 4u * 5 : 4u * 7);
    EXPECT_EQ(r.RangesNamed("iteration"), 5u);
    for (const KernelRecord& k : r.trace.kernels) {
      EXPECT_GT(k.dur_ns(), 0);
      if (!capture_range) continue;
      const bool inside = std::any_of(r.trace.ranges.begin(), r.trace.ranges.end(), [&](const NvtxRange& it) {
        return k.start_ns >= it.start_ns && k.end_ns <= it.end_ns;
      });
      EXPECT_TRUE(inside) << "kernel outside its iteration: timestamps on another clock?";
    }
    if (r.trace.devices[0].compute_major >= 10) {
      EXPECT_EQ(r.Stat("collector.kernel_timestamps"), 1) << r.command.output;
      EXPECT_EQ(r.Stat("collector.hardware_timestamps_refused"), -1) << r.command.output;
      EXPECT_NE(r.command.output.find("kernel timestamps from hardware"), std::string::npos) << r.command.output;
    } else {
      EXPECT_EQ(r.Stat("collector.kernel_timestamps"), 0);
      EXPECT_EQ(r.Stat("collector.hardware_timestamps_refused"), 1);
      // The answer CUPTI gives once the driver is up, not the "not initialised" of the first asking.
      EXPECT_NE(r.command.output.find("CUPTI_ERROR_NOT_SUPPORTED"), std::string::npos) << r.command.output;
      EXPECT_NE(r.command.output.find("warning: collector.hardware_timestamps_refused"), std::string::npos)
          << r.command.output;
    }
  }
}

TEST(GpuSamplesTest, HostGapsShowTheirCauses) {
  NIMBLE_SKIP_WITHOUT_GPU();
  const int64_t gap_us = 1000, kernel_us = 50;
  const auto r = RecordSample("host_gaps", {"--kernels", "8", "--gap-us", "1000", "--kernel-us", "50"});
  ExpectCleanRun(r);
  ASSERT_EQ(r.trace.kernels.size(), 10u);
  EXPECT_EQ(r.KernelStreams().size(), 1u);
  ASSERT_EQ(r.trace.memcpys.size(), 1u);
  EXPECT_EQ(r.trace.memcpys[0].stream, *r.KernelStreams().begin());
  EXPECT_EQ(r.trace.memcpys[0].copy_kind, CopyKind::kHtoD);
  EXPECT_EQ(r.trace.memcpys[0].bytes, 16 << 20);
  std::vector<KernelRecord> k = r.trace.kernels;
  std::sort(k.begin(), k.end(), [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; });
  const auto launches = LaunchesByCorrelation(r.trace, "LaunchKernel");
  for (size_t i = 0; i + 1 < 8; ++i) {  // 1. the GPU idles because the next launch came late
    EXPECT_GE(k[i + 1].start_ns - k[i].end_ns, (gap_us - kernel_us) * 1000 * 8 / 10) << "gap " << i;
    ASSERT_TRUE(launches.contains(k[i + 1].correlation.value()));
    EXPECT_GE(launches.at(k[i + 1].correlation.value())->start_ns, k[i].end_ns) << "gap " << i;
  }
  const KernelRecord& long_kernel = k[8];  // 2. the host waited for it in cudaStreamSynchronize
  const bool waited = std::any_of(r.trace.syncs.begin(), r.trace.syncs.end(), [&](const SyncRecord& s) {
    return s.kind == SyncKind::kStreamSynchronize && s.start_ns < long_kernel.end_ns && s.end_ns >= long_kernel.end_ns;
  });
  EXPECT_TRUE(waited) << "no stream sync spans the long kernel's end";
  const MemcpyRecord& copy = r.trace.memcpys[0];  // 3. the copy sits between it and the last kernel
  EXPECT_GE(copy.start_ns, long_kernel.end_ns);
  EXPECT_GE(k[9].start_ns, copy.end_ns);
}

TEST(GpuSamplesTest, GraphReplaysKeepEveryKernel) {
  NIMBLE_SKIP_WITHOUT_GPU();
  const auto r = RecordSample("graph_replay", {"--streams", "3", "--replays", "20"});
  ExpectCleanRun(r);
  ASSERT_EQ(r.trace.kernels.size(), 3u * 20);
  std::set<int64_t> nodes, correlations;
  for (const KernelRecord& k : r.trace.kernels) {
    EXPECT_NE(k.graph_node_id, 0);
    nodes.insert(k.graph_node_id);
    correlations.insert(k.correlation.value());
  }
  EXPECT_EQ(nodes.size(), 3u);
  EXPECT_EQ(correlations.size(), 20u);  // one per cudaGraphLaunch, shared by its 3 kernels
  const auto launches = LaunchesByCorrelation(r.trace, "cudaGraphLaunch");
  for (int64_t c : correlations) EXPECT_TRUE(launches.contains(c)) << "replay without its cudaGraphLaunch";
  EXPECT_EQ(r.RangesNamed("replay"), 20u);
}

// The median over replays of each replay's span: first start to last end of its records.
template <typename Record, typename Key>
int64_t MedianSpanNs(const std::vector<Record>& records, Key key) {
  std::map<int64_t, std::pair<int64_t, int64_t>> spans;
  for (const Record& r : records) {
    auto [it, added] = spans.try_emplace(key(r), r.start_ns, r.end_ns);
    it->second = {std::min(it->second.first, r.start_ns), std::max(it->second.second, r.end_ns)};
  }
  std::vector<int64_t> lengths;
  for (const auto& [k, span] : spans) lengths.push_back(span.second - span.first);
  return Median(std::move(lengths));
}

TEST(GpuSamplesTest, GraphLevelTraceRecordsOneSpanPerReplay) {
  NIMBLE_SKIP_WITHOUT_GPU();
  const std::vector<std::string> args = {"--streams", "3", "--replays", "20", "--kernel-us", "50"};
  const auto r = RecordSample("graph_replay", args, {"--graph-trace", "graph"});
  ExpectCleanRun(r);
  EXPECT_TRUE(r.trace.kernels.empty()) << "the graph's nodes are not recorded at graph level";
  ASSERT_EQ(r.trace.graph_launches.size(), 20u);
  EXPECT_EQ(r.Stat("collector.records.graph_launch"), 20);
  std::set<int64_t> graphs, streams, correlations;
  for (const GraphLaunchRecord& g : r.trace.graph_launches) {
    graphs.insert(g.graph_id);
    streams.insert(g.stream.value());
    correlations.insert(g.correlation.value());
    EXPECT_GE(g.dur_ns(), 50'000) << "three parallel 50 us kernels";
    EXPECT_EQ(g.device, r.trace.devices[0].id);
  }
  EXPECT_EQ(graphs.size(), 1u);        // one executable graph, replayed
  EXPECT_EQ(streams.size(), 1u);       // launched into one stream
  EXPECT_EQ(correlations.size(), 20u);
  for (int64_t c : correlations) {     // each names the API call that launched it
    const bool launched = std::any_of(r.trace.api_calls.begin(), r.trace.api_calls.end(), [&](const ApiCallRecord& a) {
      return a.correlation.value() == c && r.trace.strings.Get(a.name).find("GraphLaunch") != std::string::npos;
    });
    EXPECT_TRUE(launched) << "graph launch " << c << " without its launching call";
  }
  EXPECT_EQ(r.RangesNamed("replay"), 20u);

  // The report counts the graph launches as GPU work.
  const auto report = RunCommand({NIMBLE_PROF_PATH, "report", "--no-store", r.db});
  EXPECT_EQ(report.exit_code, 0) << report.output;
  const size_t row = report.output.find("graph launches (graph level)");
  ASSERT_NE(row, std::string::npos) << report.output;
  EXPECT_NE(report.output.substr(row, report.output.find('\n', row) - row).find("20"), std::string::npos)
      << report.output;

  // The same replays recorded per node (into a new directory: r.db is gone) span about the same time.
  const auto nodes = RecordSample("graph_replay", args);
  ExpectCleanRun(nodes);
  ASSERT_EQ(nodes.trace.kernels.size(), 60u);
  EXPECT_TRUE(nodes.trace.graph_launches.empty());
  const int64_t graph_span = MedianSpanNs(r.trace.graph_launches, [](const auto& g) { return g.correlation.value(); });
  const int64_t node_span = MedianSpanNs(nodes.trace.kernels, [](const auto& k) { return k.correlation.value(); });
  EXPECT_NEAR(static_cast<double>(graph_span), static_cast<double>(node_span), 0.2 * static_cast<double>(node_span));
}

TEST(GpuSamplesTest, LaunchLoopLosesNothing) {
  NIMBLE_SKIP_WITHOUT_GPU();
  const auto r = RecordSample("launch_loop", {"--mode", "launch", "--kernels", "200000", "--warmup", "1000"});
  ExpectCleanRun(r);
  EXPECT_EQ(r.trace.kernels.size(), 201000u);
  EXPECT_EQ(r.Stat("collector.buffers_refused"), 0);
}

TEST(GpuSamplesTest, GraphLoopLosesNothing) {
  NIMBLE_SKIP_WITHOUT_GPU();
  const auto r = RecordSample("launch_loop", {"--mode", "graph", "--kernels", "100000", "--graph-kernels", "100",
                                              "--warmup", "1000"});
  ExpectCleanRun(r);
  EXPECT_EQ(r.trace.kernels.size(), 101000u);
}

}  // namespace
}  // namespace nimble::collector::testing
