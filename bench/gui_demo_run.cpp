// Writes a SYNTHETIC run database for showing the viewer's model features before a real model run is
// recorded: an Inception-style network (stem, three four-branch blocks, classifier) timed three ways -
// eager (one stream, every kernel launched by the host), aot-single (graph replay on one stream) and
// aot-multi (graph replay on the streams analysis::AssignStreams gives) - with its op graph, kernel
// attribution, NVTX iterations, launch calls and speedups (predicted by analysis::BuildReport from the
// eager trace, measured from the synthetic runs' iterations). Kernel durations are made up.
//   nimble_gui_demo_run OUT.db
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "nimble/analysis/report.h"
#include "nimble/analysis/stream_assignment.h"
#include "nimble/core/median.h"
#include "nimble/store/run_writer.h"

namespace nimble::bench {
namespace {

constexpr int64_t kUs = 1000;
constexpr int kIterations = 5;

struct OpSpec {
  std::string name, kind, kernel;
  int64_t dur_us;
  std::vector<int32_t> inputs;
};

// stem -> 3 x (four branches -> concat) -> classifier.
std::vector<OpSpec> Network() {
  std::vector<OpSpec> ops;
  auto add = [&](std::string name, std::string kind, std::string kernel, int64_t dur, std::vector<int32_t> in) {
    ops.push_back({std::move(name), std::move(kind), std::move(kernel), dur, std::move(in)});
    return static_cast<int32_t>(ops.size() - 1);
  };
  int32_t x = add("stem_conv1", "aten::conv2d", "implicit_convolve_sgemm", 40, {});
  x = add("stem_conv2", "aten::conv2d", "implicit_convolve_sgemm", 35, {x});
  x = add("stem_conv3", "aten::conv2d", "winograd_fwd_3x3", 45, {x});
  x = add("stem_pool", "aten::max_pool2d", "max_pool_forward_nchw", 10, {x});
  x = add("stem_conv4", "aten::conv2d", "implicit_convolve_sgemm", 25, {x});
  for (int b = 1; b <= 3; ++b) {
    const std::string p = "mixed" + std::to_string(b) + "_";
    const int32_t a = add(p + "1x1", "aten::conv2d", "gemm_conv_1x1", 12, {x});
    int32_t c = add(p + "5x5_reduce", "aten::conv2d", "gemm_conv_1x1", 8, {x});
    c = add(p + "5x5", "aten::conv2d", "implicit_convolve_sgemm", 30, {c});
    int32_t d = add(p + "3x3_reduce", "aten::conv2d", "gemm_conv_1x1", 8, {x});
    d = add(p + "3x3a", "aten::conv2d", "winograd_fwd_3x3", 18, {d});
    d = add(p + "3x3b", "aten::conv2d", "winograd_fwd_3x3", 22, {d});
    int32_t e = add(p + "pool", "aten::avg_pool2d", "avg_pool_forward_nchw", 6, {x});
    e = add(p + "pool_proj", "aten::conv2d", "gemm_conv_1x1", 7, {e});
    x = add(p + "concat", "aten::cat", "cat_batched_copy", 5, {a, c, d, e});
  }
  x = add("avgpool", "aten::adaptive_avg_pool2d", "avg_pool_forward_nchw", 4, {x});
  x = add("fc", "aten::linear", "sgemm_128x64_tn", 15, {x});
  add("softmax", "aten::softmax", "softmax_warp_forward", 3, {x});
  return ops;
}

OpGraph GraphOf(const std::vector<OpSpec>& ops) {
  OpGraph graph;
  for (size_t i = 0; i < ops.size(); ++i) {
    graph.ops.push_back({OpId(static_cast<int32_t>(i)), ops[i].name, ops[i].kind, "[1,288,35,35]", ops[i].dur_us * kUs});
    for (int32_t in : ops[i].inputs) graph.edges.push_back({OpId(in), OpId(static_cast<int32_t>(i)), EdgeKind::kData});
  }
  return graph;
}

struct Schedule {
  Trace trace;
  std::vector<KernelAttribution> attribution;
  std::vector<int64_t> iteration_ns;
};

KernelRecord Kernel(Trace& t, const OpSpec& op, int64_t start_ns, int64_t stream, int64_t correlation) {
  KernelRecord k;
  k.start_ns = start_ns;
  k.end_ns = start_ns + op.dur_us * kUs;
  k.device = DeviceId(0);
  k.context = ContextId(1);
  k.stream = StreamId(stream);
  k.correlation = CorrelationId(correlation);
  k.name = k.short_name = t.strings.Intern(op.kernel);
  k.grid = {static_cast<int32_t>(8 + (op.dur_us % 5) * 6), 1, 1};  // small grids: an inference batch of one
  k.block = {256, 1, 1};
  k.registers_per_thread = 64;
  return k;
}

// Eager: the host launches op after op (framework work + launch call), the GPU runs them in order.
// An H100-like device, so that the prediction can tell how much of the GPU each kernel takes.
void AddDevice(Trace& t) {
  DeviceInfo d;
  d.id = DeviceId(0);
  d.name = t.strings.Intern("synthetic H100-like device");
  d.compute_major = 9;
  d.sm_count = 132;
  d.max_threads_per_sm = 2048;
  d.max_blocks_per_sm = 32;
  d.max_registers_per_sm = 65536;
  d.max_shared_bytes_per_sm = 233472;
  d.max_threads_per_block = 1024;
  d.global_memory_bytes = int64_t{80} << 30;
  d.core_clock_khz = 1980000;
  t.devices.push_back(d);
}

Schedule Eager(const std::vector<OpSpec>& ops) {
  Schedule s;
  Trace& t = s.trace;
  AddDevice(t);
  const StringId launch = t.strings.Intern("cudaLaunchKernel_v7000");
  const StringId sync = t.strings.Intern("cudaStreamSynchronize_v3020");
  int64_t host = 10 * kUs;
  int64_t gpu = 0;
  int64_t correlation = 1;
  for (int it = 0; it < kIterations; ++it) {
    const int64_t it_start = host;
    for (size_t i = 0; i < ops.size(); ++i) {
      host += (i % 4 == 0 ? 22 : 12) * kUs;  // the framework prepares the op
      t.api_calls.push_back({host, host + 5 * kUs, ApiKind::kRuntime, ThreadId(4242), 1, CorrelationId(correlation), launch, 211, 0});
      t.ranges.push_back({host - 3 * kUs, host + 6 * kUs, ThreadId(4242), t.strings.Intern(ops[i].name), StringId()});
      const KernelRecord k = Kernel(t, ops[i], std::max(gpu, host + 7 * kUs), 7, correlation++);
      gpu = k.end_ns;
      s.attribution.push_back({OpId(static_cast<int32_t>(i)), KernelIndex(static_cast<int64_t>(t.kernels.size()))});
      t.kernels.push_back(k);
      host += 6 * kUs;
    }
    t.api_calls.push_back({host, gpu + 4 * kUs, ApiKind::kRuntime, ThreadId(4242), 1, CorrelationId(correlation++), sync, 131, 0});
    t.syncs.push_back({host, gpu + 4 * kUs, DeviceId(0), ContextId(1), StreamId(7), CorrelationId(correlation - 1), SyncKind::kStreamSynchronize, 0});
    host = gpu + 4 * kUs;
    t.ranges.push_back({it_start, host, ThreadId(4242), t.strings.Intern("iteration"), StringId()});
    s.iteration_ns.push_back(host - it_start);
    host += 30 * kUs;  // input preparation
  }
  return s;
}

// Graph replay: one launch call per iteration; each op starts when its stream is free and its inputs are
// done (plus a node latency, and an event wait across streams).
Schedule Replay(const std::vector<OpSpec>& ops, const StreamAssignment& streams, int64_t first_stream) {
  Schedule s;
  Trace& t = s.trace;
  AddDevice(t);
  const StringId launch = t.strings.Intern("cudaGraphLaunch_v10000");
  int64_t host = 10 * kUs;
  for (int it = 0; it < kIterations; ++it) {
    const int64_t it_start = host;
    t.api_calls.push_back({host, host + 8 * kUs, ApiKind::kRuntime, ThreadId(4242), 1, CorrelationId(it + 1), launch, 311, 0});
    std::vector<int64_t> stream_free(static_cast<size_t>(streams.num_streams), host + 12 * kUs);
    std::vector<int64_t> done(ops.size(), 0);
    int64_t end = host;
    for (size_t i = 0; i < ops.size(); ++i) {
      const auto st = static_cast<size_t>(streams.op_stream[i].value());
      int64_t ready = stream_free[st];
      for (int32_t in : ops[i].inputs) ready = std::max(ready, done[static_cast<size_t>(in)] + (streams.op_stream[static_cast<size_t>(in)].value() == streams.op_stream[i].value() ? 1 : 3) * kUs);
      KernelRecord k = Kernel(t, ops[i], ready, first_stream + static_cast<int64_t>(st), it + 1);
      k.graph_id = 1;
      k.graph_node_id = static_cast<int64_t>(i) + 1;
      done[i] = stream_free[st] = k.end_ns;
      end = std::max(end, k.end_ns);
      s.attribution.push_back({OpId(static_cast<int32_t>(i)), KernelIndex(static_cast<int64_t>(t.kernels.size()))});
      t.kernels.push_back(k);
    }
    host = end + 4 * kUs;
    t.ranges.push_back({it_start, host, ThreadId(4242), t.strings.Intern("iteration"), StringId()});
    s.iteration_ns.push_back(host - it_start);
    host += 30 * kUs;
  }
  return s;
}

double MedianMs(std::vector<int64_t> v) { return static_cast<double>(Median(std::move(v))) / 1e6; }

Status Write(const std::string& path, RunMode mode, const Schedule& s, const OpGraph& graph,
             const std::vector<Speedup>& speedups) {
  RunInfo run;
  run.model = "synthetic/inception_style.pt";
  run.inputs = "1x3x299x299";
  run.device = "synthetic (generated by nimble_gui_demo_run)";
  run.mode = mode;
  run.command = "nimble_gui_demo_run";
  run.iterations = kIterations;
  NIMBLE_ASSIGN_OR_RETURN(auto writer, store::RunWriter::Create(path, run));
  NIMBLE_RETURN_IF_ERROR(writer->AppendTrace(s.trace));
  NIMBLE_RETURN_IF_ERROR(writer->WriteGraph(graph, s.attribution));
  if (!speedups.empty()) NIMBLE_RETURN_IF_ERROR(writer->WriteSpeedups(speedups));
  return writer->Commit();
}

Status WriteDemo(const std::string& path) {
  std::filesystem::remove(path);
  const std::vector<OpSpec> ops = Network();
  const OpGraph graph = GraphOf(ops);
  NIMBLE_ASSIGN_OR_RETURN(const analysis::Dag dag, analysis::Dag::FromOpGraph(graph));
  const Schedule eager = Eager(ops);
  const Schedule single = Replay(ops, analysis::SingleStream(dag), 7);
  const Schedule multi = Replay(ops, analysis::AssignStreams(dag), 13);
  // Predictions from Nimble's own analysis of the eager trace; measurements from the three schedules.
  analysis::ReportInput input;
  input.trace = &eager.trace;
  input.graph = &graph;
  input.attribution = eager.attribution;
  analysis::ReportOptions options;
  options.iteration_range = "iteration";
  NIMBLE_ASSIGN_OR_RETURN(const analysis::Report report, analysis::BuildReport(input, options));
  std::vector<Speedup> speedups = analysis::ReportSpeedups(report);
  for (Speedup& s : speedups) {
    if (s.mode == RunMode::kAotSingle) s.measured_ms = MedianMs(single.iteration_ns);
    if (s.mode == RunMode::kAotMulti) s.measured_ms = MedianMs(multi.iteration_ns);
  }
  NIMBLE_RETURN_IF_ERROR(Write(path, RunMode::kEager, eager, graph, speedups));
  NIMBLE_RETURN_IF_ERROR(Write(path, RunMode::kAotSingle, single, graph, {}));
  return Write(path, RunMode::kAotMulti, multi, graph, {});
}

}  // namespace
}  // namespace nimble::bench

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: nimble_gui_demo_run OUT.db\n");
    return 2;
  }
  const nimble::Status s = nimble::bench::WriteDemo(argv[1]);
  if (!s.ok()) {
    std::fprintf(stderr, "nimble_gui_demo_run: %s\n", s.ToString().c_str());
    return 1;
  }
  std::printf("wrote %s: synthetic eager, aot-single and aot-multi runs of an Inception-style network\n", argv[1]);
  return 0;
}
