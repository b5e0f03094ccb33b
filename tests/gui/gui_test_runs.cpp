#include "gui_test_runs.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "nimble/store/run_writer.h"

namespace nimble::gui::testing {
namespace {

constexpr int64_t kUs = 1000;
constexpr int64_t kBaseNs = 1'000'000'000;
constexpr int64_t kIterationNs = 250 * kUs;

struct OpSpec {
  const char* name;
  const char* kind;
  const char* kernel;
  bool side_stream;
  int64_t start_us, end_us;        // kernel, from the iteration start
  int64_t api_start_us;            // its launch call (3 µs long)
};

// conv_stem -> {branch_3x3, branch_1x1, branch_pool} -> concat -> classifier.
constexpr OpSpec kOps[] = {
    {"conv_stem", "aten::conv2d", "implicit_gemm_conv_stem", false, 5, 25, -8},
    {"branch_3x3", "aten::conv2d", "winograd_conv_3x3", false, 27, 77, 15},
    {"branch_1x1", "aten::conv2d", "gemm_conv_1x1", true, 30, 40, 19},
    {"branch_pool", "aten::max_pool2d", "max_pool_forward", true, 42, 57, 23},
    {"concat", "aten::cat", "cat_batched_copy", false, 80, 88, 60},
    {"classifier", "aten::linear", "sgemm_classifier", false, 128, 158, 100},
};

RunInfo ModelRunInfo(RunMode mode) {
  RunInfo run;
  run.model = "samples/models/inception_block.pt";
  run.inputs = "1x3x299x299";
  run.device = "NVIDIA H100 80GB HBM3";
  run.mode = mode;
  run.command = "gui test";
  run.iterations = 3;
  return run;
}

OpGraph BlockGraph() {
  OpGraph graph;
  for (int32_t i = 0; i < 6; ++i) graph.ops.push_back({OpId(i), kOps[i].name, kOps[i].kind, "[1,64,35,35]", 0});
  for (int32_t b : {1, 2, 3}) {
    graph.edges.push_back({OpId(0), OpId(b), EdgeKind::kData});
    graph.edges.push_back({OpId(b), OpId(4), EdgeKind::kData});
  }
  graph.edges.push_back({OpId(4), OpId(5), EdgeKind::kData});
  return graph;
}

void Check(const Status& s) { ASSERT_TRUE(s.ok()) << s.ToString(); }

// One iteration of the eager run at `t`: kernels, launch calls, NVTX ranges, and the copy (iteration 1)
// or late launch (0 and 2) before the classifier.
void AddIteration(int k, int64_t t, Trace& trace, std::vector<KernelAttribution>& attribution, ModelRunFacts& facts) {
  const StringId launch = trace.strings.Intern("cudaLaunchKernel_v7000");
  trace.ranges.push_back({t - 10 * kUs, t + 165 * kUs, ThreadId(1001), trace.strings.Intern("iteration"), StringId()});
  facts.iterations.push_back({t - 10 * kUs, t + 165 * kUs});
  for (int32_t op = 0; op < 6; ++op) {
    const OpSpec& spec = kOps[op];
    const auto correlation = CorrelationId(static_cast<int64_t>(trace.kernels.size()) * 2 + 1);
    KernelRecord kernel;
    kernel.start_ns = t + spec.start_us * kUs;
    kernel.end_ns = t + spec.end_us * kUs;
    kernel.device = DeviceId(0);
    kernel.context = ContextId(1);
    kernel.stream = StreamId(spec.side_stream ? facts.stream_side : facts.stream_main);
    kernel.correlation = correlation;
    kernel.name = kernel.short_name = trace.strings.Intern(spec.kernel);
    kernel.grid = {64, 1, 1};
    kernel.block = {256, 1, 1};
    attribution.push_back({OpId(op), KernelIndex(static_cast<int64_t>(trace.kernels.size()))});
    trace.kernels.push_back(kernel);
    const int64_t api_start = t + (op == 5 && k == 1 ? 70 : spec.api_start_us) * kUs;
    trace.api_calls.push_back({api_start, api_start + 3 * kUs, ApiKind::kRuntime, ThreadId(1001), 4242, correlation,
                               launch, 211, 0});
    trace.ranges.push_back({api_start, api_start + 3 * kUs, ThreadId(1001), trace.strings.Intern(spec.name),
                            StringId()});
    if (spec.side_stream) facts.side_stream_kernels.push_back({kernel.start_ns, kernel.end_ns});
    else if (op != 2 && op != 3) facts.critical_kernels.push_back({kernel.start_ns, kernel.end_ns});
  }
  const bool copy = k == 1;
  if (copy) {
    MemcpyRecord m;
    m.start_ns = t + 95 * kUs;
    m.end_ns = t + 120 * kUs;
    m.device = DeviceId(0);
    m.context = ContextId(1);
    m.stream = StreamId(facts.stream_main);
    m.correlation = CorrelationId(100'000 + k);
    m.bytes = 4 << 20;
    m.copy_kind = CopyKind::kHtoD;
    m.src_kind = MemoryKind::kPageable;
    m.dst_kind = MemoryKind::kDevice;
    trace.memcpys.push_back(m);
    trace.api_calls.push_back({t + 90 * kUs, t + 93 * kUs, ApiKind::kRuntime, ThreadId(1001), 4242, m.correlation,
                               trace.strings.Intern("cudaMemcpyAsync_v3020"), 41, 0});
  }
  facts.long_gaps.push_back({{t + 88 * kUs, t + 128 * kUs},
                             copy ? analysis::GapCause::kMemoryCopy : analysis::GapCause::kHostLaunchLate});
  if (k < 2) {
    SyncRecord s;
    s.start_ns = t + 160 * kUs;
    s.end_ns = t + kIterationNs + 4 * kUs;
    s.device = DeviceId(0);
    s.context = ContextId(1);
    s.stream = StreamId(facts.stream_main);
    s.kind = SyncKind::kStreamSynchronize;
    trace.syncs.push_back(s);
    facts.long_gaps.push_back({{t + 158 * kUs, t + kIterationNs + 5 * kUs}, analysis::GapCause::kSynchronization});
  }
}

}  // namespace

ModelRunFacts WriteModelRun(const std::string& path) {
  ModelRunFacts facts;
  Trace trace;
  std::vector<KernelAttribution> attribution;
  for (int k = 0; k < 3; ++k) AddIteration(k, kBaseNs + k * kIterationNs, trace, attribution, facts);
  facts.first_ns = kBaseNs + 5 * kUs;
  facts.last_ns = kBaseNs + 2 * kIterationNs + 158 * kUs;
  facts.critical_ops = {"conv_stem", "branch_3x3", "concat", "classifier"};
  facts.lanes = 5;  // GPU 0 idle, stream 7, stream 8, thread NVTX, thread API
  auto writer = store::RunWriter::Create(path, ModelRunInfo(RunMode::kEager));
  Check(writer.status());
  Check((*writer)->AppendTrace(trace));
  Check((*writer)->WriteGraph(BlockGraph(), attribution));
  const std::vector<Speedup> speedups = {
      {RunMode::kEager, 0.163, 0.170, 0.163},
      {RunMode::kAotSingle, 0.121, 0.118, 0.163},
      {RunMode::kAotMulti, 0.102, 0.095, 0.163}};
  Check((*writer)->WriteSpeedups(speedups));
  Check((*writer)->Commit());
  return facts;
}

void AppendAcceleratedRun(const std::string& path) {
  Trace trace;
  std::vector<KernelAttribution> attribution;
  // Graph replay on three streams: the branches run side by side, no launch gaps.
  constexpr int64_t kStart[] = {1, 22, 22, 22, 74, 83};
  constexpr int64_t kStream[] = {13, 13, 14, 15, 13, 13};
  for (int k = 0; k < 3; ++k) {
    const int64_t t = kBaseNs + 5'000'000 + k * 130 * kUs;
    trace.ranges.push_back({t, t + 115 * kUs, ThreadId(1001), trace.strings.Intern("iteration"), StringId()});
    for (int32_t op = 0; op < 6; ++op) {
      KernelRecord kernel;
      kernel.start_ns = t + kStart[op] * kUs;
      kernel.end_ns = kernel.start_ns + (kOps[op].end_us - kOps[op].start_us) * kUs;
      kernel.device = DeviceId(0);
      kernel.stream = StreamId(kStream[op]);
      kernel.correlation = CorrelationId(500 + k);
      kernel.name = kernel.short_name = trace.strings.Intern(kOps[op].kernel);
      kernel.graph_id = 1;
      kernel.graph_node_id = op + 1;
      attribution.push_back({OpId(op), KernelIndex(static_cast<int64_t>(trace.kernels.size()))});
      trace.kernels.push_back(kernel);
    }
  }
  auto writer = store::RunWriter::Create(path, ModelRunInfo(RunMode::kAotMulti));
  Check(writer.status());
  Check((*writer)->AppendTrace(trace));
  Check((*writer)->WriteGraph(BlockGraph(), attribution));
  StreamAssignment assignment;
  assignment.num_streams = 3;
  assignment.op_stream = {StreamId(0), StreamId(0), StreamId(1), StreamId(2), StreamId(0), StreamId(0)};
  assignment.syncs = {{OpId(0), OpId(2), EdgeKind::kData}, {OpId(0), OpId(3), EdgeKind::kData},
                      {OpId(2), OpId(4), EdgeKind::kData}, {OpId(3), OpId(4), EdgeKind::kData}};
  Check((*writer)->WriteAssignment(assignment));
  Check((*writer)->Commit());
}

std::string MakeScratchDir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("nimble_gui_" + name + "_" + std::to_string(std::random_device{}()));
  std::filesystem::create_directories(dir);
  return dir.string();
}

}  // namespace nimble::gui::testing
