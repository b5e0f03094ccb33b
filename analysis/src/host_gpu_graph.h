// Private to trace_critical_path.cpp: one device's records as the nodes of an implicit event graph
// (each node has a start and an end event) with, per node, the one predecessor of each edge kind that
// released it last, so that walking a path costs O(1) a step. Built in O(n log n); read-only after.
// Every edge goes forward in time, and P (an API call's start; GPU work: its launching call's start)
// never decreases along one and rises strictly across a wait or sync: so the graph has no cycle.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "nimble/analysis/trace_critical_path.h"
#include "nimble/core/trace.h"

namespace nimble::analysis::detail {

inline constexpr int32_t kNoNode = -1;

struct PathNode {
  int64_t start_ns = 0;  // API calls: clamped to the end of the previous call on the thread
  int64_t end_ns = 0;
  TraceRecordRef record;
  StreamId stream;  // GPU work
  ThreadId thread;  // API calls
  // API calls.
  int32_t thread_prev = kNoNode;  // previous top-level call on the thread: E(prev) -> S(this)
  int32_t end_pred = kNoNode;     // GPU work whose end released this call's return (sync): E(pred) -> E(this)
  // GPU work.
  int32_t launch = kNoNode;       // launching call: E(call) -> S(this), or S(call) -> S(this) when it began inside it
  int32_t stream_prev = kNoNode;  // work before it on the stream: E(prev) -> S(this)
  int32_t event_pred = kNoNode;   // work it waited for through a stream wait: E(pred) -> S(this)
  bool host() const { return record.kind == TraceRecordKind::kApiCall; }
};

struct HostGpuGraph {
  // API calls of the device's threads first (by API call index), then the device's kernels, copies,
  // sets and graph launches (each by index): a lower node id is a lower record.
  std::vector<PathNode> nodes;
  std::vector<int32_t> by_end;  // node ids by end, ties: highest id first (so the last of a run is the lowest)
};

// Which sync records concern the device: its own, else (no device recorded) those on one of its
// streams, else those of one of its contexts, else context-wide ones with nothing recorded.
struct DeviceScope {
  DeviceId device;
  std::unordered_set<int64_t> streams;
  std::unordered_set<int64_t> contexts;
  bool Covers(const SyncRecord& sync) const;
};

// What the builder knows that the wait linker needs.
struct BuildContext {
  DeviceScope scope;
  std::unordered_map<int64_t, int64_t> call_of_correlation;  // correlation id -> top-level API call index
  std::vector<int32_t> api_node;         // API call index -> node; kNoNode off the device's threads
  std::vector<int64_t> launch_start_ns;  // per node: launched GPU work's launching call start, else INT64_MIN
  int32_t CallNode(CorrelationId correlation) const;  // kNoNode when no call of the device's threads has it
};

// The top-level API calls of the device's threads and its GPU work, linked; see trace_critical_path.h.
HostGpuGraph BuildHostGpuGraph(const Trace& trace, DeviceId device);

// Fills the GPU nodes' event_pred and the API calls' end_pred (host_gpu_waits.cpp).
void LinkWaits(const Trace& trace, const BuildContext& context, HostGpuGraph& graph);

// True when the two (end, node) pairs order as "released later": a later end, or on a tie the lower node.
inline bool ReleasedLater(int64_t end_a, int32_t node_a, int64_t end_b, int32_t node_b) {
  return end_a != end_b ? end_a > end_b : node_a < node_b;
}

}  // namespace nimble::analysis::detail
