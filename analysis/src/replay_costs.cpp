#include "nimble/analysis/replay_costs.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <vector>

#include "nimble/core/median.h"

namespace nimble::analysis {

StatusOr<ReplayCosts> MeasureReplayCosts(const Trace& trace) {
  std::map<int64_t, std::vector<const KernelRecord*>> replays;  // by correlation id
  for (const KernelRecord& k : trace.kernels) {
    if (k.graph_id != 0) replays[k.correlation.value()].push_back(&k);
  }
  if (replays.empty()) return NotFound("no kernels replayed from a CUDA graph in the trace");
  std::unordered_map<int64_t, int64_t> call_start_ns;  // earliest call of each correlation id
  for (const ApiCallRecord& call : trace.api_calls) {
    auto [it, inserted] = call_start_ns.try_emplace(call.correlation.value(), call.start_ns);
    if (!inserted) it->second = std::min(it->second, call.start_ns);
  }
  std::vector<int64_t> launch, same, cross;
  for (auto& [correlation, kernels] : replays) {
    std::sort(kernels.begin(), kernels.end(), [](auto* a, auto* b) { return a->start_ns < b->start_ns; });
    const auto call = call_start_ns.find(correlation);
    if (call != call_start_ns.end() && call->second <= kernels.front()->start_ns) {
      launch.push_back(kernels.front()->start_ns - call->second);
    }
    for (size_t i = 1; i < kernels.size(); ++i) {
      const KernelRecord* predecessor = nullptr;
      for (size_t j = 0; j < i; ++j) {
        const KernelRecord* k = kernels[j];
        if (k->end_ns <= kernels[i]->start_ns && (predecessor == nullptr || k->end_ns > predecessor->end_ns)) {
          predecessor = k;
        }
      }
      if (predecessor == nullptr) continue;
      const int64_t gap = kernels[i]->start_ns - predecessor->end_ns;
      (predecessor->stream == kernels[i]->stream ? same : cross).push_back(gap);
    }
  }
  ReplayCosts costs;
  costs.replays = static_cast<int32_t>(replays.size());
  costs.node_gaps = static_cast<int32_t>(same.size());
  costs.cross_stream_gaps = static_cast<int32_t>(cross.size());
  costs.launch_ns = launch.empty() ? 0 : Median(std::move(launch));
  costs.node_gap_ns = same.empty() ? 0 : Median(std::move(same));
  costs.cross_stream_gap_ns = cross.empty() ? 0 : Median(std::move(cross));
  return costs;
}

void ApplyReplayCosts(const ReplayCosts& costs, int32_t memset_nodes_replaced, int32_t memset_nodes_kept,
                      PredictionOptions* options) {
  options->graph_launch_ns = costs.launch_ns;
  options->graph_node_latency_ns = costs.node_gap_ns;
  options->sync_latency_ns = std::max<int64_t>(0, costs.cross_stream_gap_ns - costs.node_gap_ns);
  options->graph_extra_nodes_ns = memset_nodes_replaced * costs.fill_node_ns + memset_nodes_kept * costs.memset_node_ns;
}

}  // namespace nimble::analysis
