#include "gui_bench_data.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <vector>

#include "nimble/core/op_graph.h"
#include "nimble/store/run_reader.h"
#include "nimble/store/run_writer.h"
#include "nimble/store/timeline_reader.h"

namespace nimble::bench {
namespace {

constexpr std::array<const char*, 20> kFamilies = {
    "ampere_sgemm_128x64_nn", "cutlass_tensorop_s1688gemm", "implicit_convolve_sgemm", "winograd_fwd",
    "vectorized_elementwise_add", "elementwise_mul", "relu_kernel", "batch_norm_collect_statistics",
    "batch_norm_transform_input", "softmax_warp_forward", "reduce_sum_kernel", "cat_array_batched_copy",
    "max_pool2d_forward", "avg_pool2d_forward", "layer_norm_kernel", "gelu_kernel", "transpose_tile",
    "index_select_kernel", "fill_kernel", "dropout_kernel"};

struct Generator {
  explicit Generator(const BenchRunShape& s) : shape(s), rng(s.seed) {
    for (int32_t i = 0; i < shape.distinct_names; ++i) {
      names.push_back(strings.Intern(std::string(kFamilies[static_cast<size_t>(i) % kFamilies.size()]) + "_v" +
                                     std::to_string(i / static_cast<int32_t>(kFamilies.size()))));
    }
    launch = strings.Intern("cudaLaunchKernel_v7000");
    iteration = strings.Intern("iteration");
  }

  int64_t Uniform(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); }

  // Mostly short kernels, some medium, a few long ones: the spread of a real network.
  int64_t KernelDurNs() {
    const int64_t pick = Uniform(0, 99);
    if (pick < 70) return Uniform(2'000, 20'000);
    if (pick < 95) return Uniform(20'000, 100'000);
    return Uniform(100'000, 500'000);
  }

  // Mostly back-to-back, sometimes the host is late, rarely a long stall.
  int64_t GapNs() {
    const int64_t pick = Uniform(0, 99);
    if (pick < 80) return Uniform(500, 4'000);
    if (pick < 95) return Uniform(5'000, 30'000);
    return Uniform(50'000, 200'000);
  }

  // One iteration's kernels on every stream, sorted by start; returns the iteration's end.
  int64_t Iteration(int64_t start_ns, int32_t count, std::vector<KernelRecord>& out) {
    out.clear();
    const int32_t per_stream = std::max(1, count / shape.streams);
    int64_t end_ns = start_ns;
    for (int32_t s = 0; s < shape.streams && static_cast<int32_t>(out.size()) < count; ++s) {
      int64_t t_ns = start_ns + Uniform(0, 20'000);
      for (int32_t i = 0; i < per_stream && static_cast<int32_t>(out.size()) < count; ++i) {
        KernelRecord k;
        k.start_ns = t_ns;
        k.end_ns = t_ns + KernelDurNs();
        k.device = DeviceId(0);
        k.context = ContextId(1);
        k.stream = StreamId(7 + s);
        k.short_name = k.name = names[static_cast<size_t>(Uniform(0, shape.distinct_names - 1))];
        k.grid = {static_cast<int32_t>(Uniform(1, 4096)), 1, 1};
        k.block = {256, 1, 1};
        out.push_back(k);
        t_ns = k.end_ns + GapNs();
      }
      end_ns = std::max(end_ns, out.back().end_ns);
    }
    std::sort(out.begin(), out.end(), [](const KernelRecord& a, const KernelRecord& b) { return a.start_ns < b.start_ns; });
    for (KernelRecord& k : out) k.correlation = CorrelationId(next_correlation++);
    return end_ns;
  }

  // Launch calls on one host thread, each a few microseconds before its kernel, never overlapping.
  void LaunchCalls(const std::vector<KernelRecord>& kernels, std::vector<ApiCallRecord>& out) {
    out.clear();
    for (const KernelRecord& k : kernels) {
      ApiCallRecord call;
      call.start_ns = std::max(last_api_end_ns + 200, k.start_ns - Uniform(3'000, 20'000));
      call.end_ns = call.start_ns + Uniform(2'000, 4'000);
      call.thread = ThreadId(1001);
      call.process = 1000;
      call.correlation = k.correlation;
      call.name = launch;
      last_api_end_ns = call.end_ns;
      out.push_back(call);
    }
  }

  const BenchRunShape& shape;
  std::mt19937_64 rng;
  StringTable strings;
  std::vector<StringId> names;
  StringId launch;
  StringId iteration;
  int64_t next_correlation = 1;
  int64_t last_api_end_ns = 0;
};

// Two chains (op v depends on v - 2) that join at every eighth op (which also depends on v - 1), so
// that about half the ops are on the critical path and the plan has two streams.
OpGraph BranchingGraph(int32_t ops) {
  OpGraph graph;
  for (int32_t v = 0; v < ops; ++v) graph.ops.push_back({OpId(v), "op_" + std::to_string(v), "kind", "", 0});
  for (int32_t v = 1; v < ops; ++v) {
    if (v >= 2) graph.edges.push_back({OpId(v - 2), OpId(v), EdgeKind::kData});
    if (v % 8 == 0 || v == 1) graph.edges.push_back({OpId(v - 1), OpId(v), EdgeKind::kData});
  }
  return graph;
}

// The i-th of an iteration's `count` kernels (in start order) belongs to op i * ops / count.
void Attribute(int32_t ops, int64_t first_index, size_t count, std::vector<KernelAttribution>& out) {
  for (size_t i = 0; i < count; ++i) {
    const auto op = static_cast<int32_t>(static_cast<int64_t>(i) * ops / static_cast<int64_t>(count));
    out.push_back({OpId(op), KernelIndex(first_index + static_cast<int64_t>(i))});
  }
}

}  // namespace

Status WriteBenchRun(const std::string& path, const BenchRunShape& shape) {
  std::error_code ignored;
  std::filesystem::remove(path, ignored);
  RunInfo run;
  run.model = "synthetic";
  run.inputs = std::to_string(shape.kernels) + " kernels";
  run.device = "generated";
  run.mode = RunMode::kProgram;
  run.command = "gui_timeline_bench";
  NIMBLE_ASSIGN_OR_RETURN(auto writer, store::RunWriter::Create(path, run));
  Generator gen(shape);
  std::vector<KernelRecord> kernels;
  std::vector<ApiCallRecord> calls;
  std::vector<NvtxRange> ranges;
  std::vector<KernelAttribution> attribution;
  int64_t written = 0;
  int64_t t_ns = 1'000'000'000;
  while (written < shape.kernels) {
    const auto count = static_cast<int32_t>(std::min<int64_t>(shape.kernels_per_iteration, shape.kernels - written));
    const int64_t end_ns = gen.Iteration(t_ns, count, kernels);
    NIMBLE_RETURN_IF_ERROR(writer->AppendKernels(kernels, gen.strings));
    if (shape.api_calls) {
      gen.LaunchCalls(kernels, calls);
      NIMBLE_RETURN_IF_ERROR(writer->AppendApiCalls(calls, gen.strings));
    }
    if (shape.ops > 0) Attribute(shape.ops, written, kernels.size(), attribution);
    ranges.push_back({t_ns - 30'000, end_ns + 10'000, ThreadId(1001), gen.iteration, StringId()});
    written += static_cast<int64_t>(kernels.size());
    t_ns = end_ns + gen.Uniform(50'000, 120'000);
  }
  NIMBLE_RETURN_IF_ERROR(writer->AppendRanges(ranges, gen.strings));
  if (shape.ops > 0) NIMBLE_RETURN_IF_ERROR(writer->WriteGraph(BranchingGraph(shape.ops), attribution));
  return writer->Commit();
}

Status EnsureBenchRun(const std::string& path, const BenchRunShape& shape) {
  if (std::filesystem::exists(path)) {
    auto reader = store::TimelineReader::Open(path);
    if (reader.ok()) {
      auto end = (*reader)->KernelIndexEnd(RunId(1));
      if (end.ok() && *end == shape.kernels) return OkStatus();
    }
  }
  return WriteBenchRun(path, shape);
}

BenchArgs ParseBenchArgs(int argc, char** argv, int default_viewports) {
  BenchArgs args;
  args.viewports = default_viewports;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--db") args.db = argv[i + 1];
    else if (flag == "--kernels") args.kernels = std::atoll(argv[i + 1]);
    else if (flag == "--viewports") args.viewports = std::atoi(argv[i + 1]);
    else if (flag == "--threads") args.threads = std::atoi(argv[i + 1]);
    else if (flag == "--api") args.api_calls = std::atoi(argv[i + 1]) != 0;
    else if (flag == "--ops") args.ops = std::atoi(argv[i + 1]);
  }
  if (args.api_calls && args.db == BenchArgs().db) args.db = "/tmp/nimble_gui_bench_10m_api.db";
  if (args.ops > 0 && args.db == BenchArgs().db) args.db = "/tmp/nimble_gui_bench_10m_ops.db";
  return args;
}

}  // namespace nimble::bench
