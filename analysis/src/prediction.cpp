#include "nimble/analysis/prediction.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <unordered_map>

#include "nimble/analysis/occupancy.h"
#include "nimble/analysis/stream_assignment.h"

namespace nimble::analysis {
namespace {

// Mean spacing of the launch calls of `kernels`; kernels replayed from one graph share one call.
int64_t MeanLaunchGapNs(const Trace& trace, const std::vector<const KernelRecord*>& kernels) {
  std::unordered_map<int64_t, int64_t> call_start_ns;
  for (const ApiCallRecord& call : trace.api_calls) {
    auto [it, inserted] = call_start_ns.try_emplace(call.correlation.value(), call.start_ns);
    if (!inserted) it->second = std::min(it->second, call.start_ns);
  }
  std::vector<std::pair<int64_t, int64_t>> calls;  // (correlation id, call start)
  for (const KernelRecord* k : kernels) {
    const auto it = call_start_ns.find(k->correlation.value());
    if (it != call_start_ns.end()) calls.emplace_back(it->first, it->second);
  }
  std::sort(calls.begin(), calls.end());
  calls.erase(std::unique(calls.begin(), calls.end()), calls.end());
  if (calls.size() < 2) return 0;
  const auto [first, last] = std::minmax_element(calls.begin(), calls.end(),
                                                 [](const auto& a, const auto& b) { return a.second < b.second; });
  return (last->second - first->second) / static_cast<int64_t>(calls.size() - 1);
}

}  // namespace

StatusOr<Workload> BuildWorkload(const Trace& trace, int32_t num_ops, std::span<const KernelAttribution> attribution,
                                 const DeviceInfo* device, std::optional<TimeWindow> window) {
  NIMBLE_ASSIGN_OR_RETURN(const OpKernels weighed, WeighOps(num_ops, attribution, KernelSpans(trace), window));
  return WorkloadOf(trace, weighed, device);
}

Workload WorkloadOf(const Trace& trace, const OpKernels& weighed, const DeviceInfo* device) {
  Workload out;
  out.op_kernels.resize(weighed.op_time_ns.size());
  const DeviceInfo unknown_device;
  for (size_t v = 0; v < out.op_kernels.size(); ++v) {
    for (KernelIndex index : weighed.of(v)) {
      const KernelRecord& k = trace.kernels[static_cast<size_t>(index.value())];
      const Occupancy occupancy = EstimateOccupancy(k, device != nullptr ? *device : unknown_device);
      out.op_kernels[v].push_back({k.dur_ns(), occupancy.gpu_share, occupancy.wave_share});
    }
  }
  std::vector<const KernelRecord*> all;
  all.reserve(weighed.kernels.size());
  for (KernelIndex index : weighed.kernels) all.push_back(&trace.kernels[static_cast<size_t>(index.value())]);
  out.launch_gap_ns = MeanLaunchGapNs(trace, all);
  return out;
}

Workload WorkloadFromOpTimes(const OpGraph& graph) {
  Workload out;
  for (const Op& op : graph.ops) {
    out.op_kernels.push_back({});
    if (op.gpu_time_ns > 0) out.op_kernels.back().push_back({op.gpu_time_ns, 1.0});
  }
  return out;
}

LaunchCosts EagerCosts(const Workload& workload, const PredictionOptions& options) {
  LaunchCosts costs;
  costs.host_per_kernel_ns = options.eager_launch_gap_ns > 0   ? options.eager_launch_gap_ns
                             : workload.launch_gap_ns > 0       ? workload.launch_gap_ns
                                                                : options.fallback_launch_gap_ns;
  costs.host_per_event_ns = options.event_host_ns;
  costs.sync_latency_ns = options.sync_latency_ns;
  return costs;
}

LaunchCosts GraphReplayCosts(const PredictionOptions& options) {
  LaunchCosts costs;
  costs.start_ns = options.graph_launch_ns + options.graph_extra_nodes_ns;
  costs.gpu_per_kernel_ns = options.graph_node_latency_ns;
  costs.sync_latency_ns = options.sync_latency_ns;
  return costs;
}

namespace {

std::vector<std::vector<SimKernel>> SharedKernels(const Workload& workload, const SharingModel& sharing) {
  std::vector<std::vector<SimKernel>> out = workload.op_kernels;
  if (sharing.identity()) return out;
  const bool waves = sharing.dispatch == Dispatch::kInOrder;
  for (std::vector<SimKernel>& kernels : out) {
    for (SimKernel& k : kernels) {
      const double share = waves && k.wave_share >= 0 ? k.wave_share : k.gpu_share;
      k.crowded_slowdown = CrowdedSlowdown(share, sharing);
      k.gpu_share = EffectiveShare(share, sharing);
    }
  }
  return out;
}

}  // namespace

StatusOr<int64_t> PredictMultiStream(const Dag& dag, const Workload& workload, const StreamAssignment& multi_stream,
                                     const PredictionOptions& options) {
  const std::vector<std::vector<SimKernel>> kernels = SharedKernels(workload, options.sharing);
  NIMBLE_ASSIGN_OR_RETURN(const SimResult run,
                          Simulate(dag, kernels, multi_stream, GraphReplayCosts(options), options.sharing.dispatch));
  return run.latency_ns;
}

StatusOr<Prediction> Predict(const Dag& dag, const Workload& workload, const StreamAssignment& multi_stream,
                             const PredictionOptions& options) {
  const StreamAssignment single = SingleStream(dag);
  const LaunchCosts eager = EagerCosts(workload, options);
  const LaunchCosts replay = GraphReplayCosts(options);
  Prediction out;
  out.launch_gap_ns = eager.host_per_kernel_ns;
  NIMBLE_ASSIGN_OR_RETURN(const SimResult eager_run, Simulate(dag, workload.op_kernels, single, eager));
  NIMBLE_ASSIGN_OR_RETURN(const SimResult single_run, Simulate(dag, workload.op_kernels, single, replay));
  NIMBLE_ASSIGN_OR_RETURN(out.aot_multi_ns, PredictMultiStream(dag, workload, multi_stream, options));
  out.eager_ns = eager_run.latency_ns;
  out.aot_single_ns = single_run.latency_ns;
  return out;
}

StatusOr<AnchoredWorkload> AnchorToSingleStream(const Dag& dag, const Workload& workload,
                                                const PredictionOptions& options, int64_t measured_single_ns) {
  if (measured_single_ns <= 0) return InvalidArgument("anchoring needs a measured single-stream replay (got <= 0 ns)");
  int64_t kernel_ns = 0;
  for (const std::vector<SimKernel>& kernels : workload.op_kernels) {
    for (const SimKernel& k : kernels) kernel_ns += k.dur_ns;
  }
  if (kernel_ns <= 0) return FailedPrecondition("no kernel time to scale");
  // One stream runs its kernels one after another: the replay is the kernels' time plus what the replay
  // costs add, and only the first scales.
  NIMBLE_ASSIGN_OR_RETURN(const SimResult single,
                          Simulate(dag, workload.op_kernels, SingleStream(dag), GraphReplayCosts(options)));
  const int64_t overhead_ns = single.latency_ns - kernel_ns;
  const int64_t target_ns = measured_single_ns - overhead_ns;
  auto text = [](const char* format, double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), format, value);
    return std::string(buffer);
  };
  auto ms = [&](int64_t ns) { return text("%.3f ms", static_cast<double>(ns) / 1e6); };
  if (target_ns <= 0) {
    return FailedPrecondition("the measured single-stream replay (" + ms(measured_single_ns) +
                              ") leaves no time for the kernels after the replay costs (" + ms(overhead_ns) + ")");
  }
  AnchoredWorkload out{workload, static_cast<double>(target_ns) / static_cast<double>(kernel_ns)};
  if (out.scale < kMinAnchorScale || out.scale > kMaxAnchorScale) {
    return FailedPrecondition("the measured single-stream replay (" + ms(measured_single_ns) +
                              ") needs the recorded kernels' time scaled by " + text("%.4g", out.scale) +
                              " (they predict " + ms(single.latency_ns) + "), outside " + text("%g", kMinAnchorScale) +
                              "-" + text("%gx", kMaxAnchorScale));
  }
  for (std::vector<SimKernel>& kernels : out.workload.op_kernels) {
    for (SimKernel& k : kernels) k.dur_ns = std::llround(static_cast<double>(k.dur_ns) * out.scale);
  }
  return out;
}

}  // namespace nimble::analysis
