// Nodes and the thread, launch and stream edges of the host/GPU event graph (host_gpu_graph.h).
#include "host_gpu_graph.h"

#include <algorithm>
#include <limits>
#include <queue>
#include <unordered_set>
#include <utility>

namespace nimble::analysis::detail {
namespace {

constexpr int64_t kNoLaunch = std::numeric_limits<int64_t>::min();

// Records promise start <= end; an imported one that breaks it is read as instantaneous.
template <typename R>
int64_t EndOf(const R& r) {
  return std::max(r.start_ns, r.end_ns);
}

// Per API call: the top-level call holding it (itself when top-level) and its start, clamped to the
// end of the previous top-level call on the thread; `order` lists the calls by thread, then start.
struct HostCalls {
  std::vector<int64_t> top;
  std::vector<int64_t> start_ns;
  std::vector<int64_t> order;
};

HostCalls IndexHostCalls(const std::vector<ApiCallRecord>& calls) {
  HostCalls out;
  out.top.resize(calls.size());
  out.start_ns.resize(calls.size());
  out.order.resize(calls.size());
  // An enclosing call sorts before the calls it holds: same start, later end first. Sorting the keys
  // themselves, not indices into the records, keeps the sort in cache.
  struct Key {
    int64_t thread, start_ns, neg_end_ns, index;
    auto operator<=>(const Key&) const = default;
  };
  std::vector<Key> keys(calls.size());
  for (size_t i = 0; i < calls.size(); ++i) {
    keys[i] = {calls[i].thread.value(), calls[i].start_ns, -EndOf(calls[i]), static_cast<int64_t>(i)};
  }
  std::sort(keys.begin(), keys.end());
  for (size_t i = 0; i < keys.size(); ++i) out.order[i] = keys[i].index;
  int64_t current = -1;  // top-level call of the thread being swept
  for (int64_t i : out.order) {
    const ApiCallRecord& c = calls[static_cast<size_t>(i)];
    const bool same_thread = current >= 0 && calls[static_cast<size_t>(current)].thread == c.thread;
    const int64_t current_end = same_thread ? EndOf(calls[static_cast<size_t>(current)]) : kNoLaunch;
    if (same_thread && EndOf(c) <= current_end) {
      out.top[static_cast<size_t>(i)] = current;
      out.start_ns[static_cast<size_t>(i)] = c.start_ns;
      continue;
    }
    // A call that outlives the previous one without being inside it starts, for the path, at its end.
    out.top[static_cast<size_t>(i)] = i;
    out.start_ns[static_cast<size_t>(i)] = same_thread ? std::max(c.start_ns, current_end) : c.start_ns;
    current = i;
  }
  return out;
}

// Runtime and driver records of one launch share a correlation id: the earliest top-level call wins.
std::unordered_map<int64_t, int64_t> CallsByCorrelation(const std::vector<ApiCallRecord>& calls, const HostCalls& host) {
  std::unordered_map<int64_t, int64_t> out;
  out.reserve(calls.size());
  for (size_t i = 0; i < calls.size(); ++i) {
    if (!calls[i].correlation.valid()) continue;
    const int64_t top = host.top[i];
    auto [it, inserted] = out.try_emplace(calls[i].correlation.value(), top);
    if (inserted) continue;
    const int64_t held = it->second;
    const auto key = [&](int64_t c) { return std::make_pair(host.start_ns[static_cast<size_t>(c)], c); };
    if (key(top) < key(held)) it->second = top;
  }
  return out;
}

struct GpuWork {
  TraceRecordRef record;
  int64_t start_ns;
  int64_t end_ns;
  StreamId stream;
  int64_t call;  // top-level launching call, -1 when none was recorded
};

// The device's GPU work in node order, and the device's streams and contexts.
std::vector<GpuWork> CollectGpuWork(const Trace& trace, const std::unordered_map<int64_t, int64_t>& calls,
                                    DeviceScope& scope) {
  std::vector<GpuWork> out;
  auto add = [&](TraceRecordKind kind, size_t index, const auto& r) {
    if (r.device != scope.device) return;
    const auto it = r.correlation.valid() ? calls.find(r.correlation.value()) : calls.end();
    out.push_back({{kind, static_cast<int64_t>(index)}, r.start_ns, EndOf(r), r.stream, it == calls.end() ? -1 : it->second});
    scope.streams.insert(r.stream.value());
    scope.contexts.insert(r.context.value());
  };
  for (size_t i = 0; i < trace.kernels.size(); ++i) add(TraceRecordKind::kKernel, i, trace.kernels[i]);
  for (size_t i = 0; i < trace.memcpys.size(); ++i) add(TraceRecordKind::kMemcpy, i, trace.memcpys[i]);
  for (size_t i = 0; i < trace.memsets.size(); ++i) add(TraceRecordKind::kMemset, i, trace.memsets[i]);
  for (size_t i = 0; i < trace.graph_launches.size(); ++i) add(TraceRecordKind::kGraphLaunch, i, trace.graph_launches[i]);
  return out;
}

// Threads that launched the device's work or synchronized with it.
std::unordered_set<int64_t> DeviceThreads(const Trace& trace, const std::vector<GpuWork>& work, const BuildContext& ctx) {
  std::unordered_set<int64_t> out;
  for (const GpuWork& w : work) {
    if (w.call >= 0) out.insert(trace.api_calls[static_cast<size_t>(w.call)].thread.value());
  }
  for (const SyncRecord& s : trace.syncs) {
    if (!ctx.scope.Covers(s) || !s.correlation.valid()) continue;
    const auto it = ctx.call_of_correlation.find(s.correlation.value());
    if (it != ctx.call_of_correlation.end()) out.insert(trace.api_calls[static_cast<size_t>(it->second)].thread.value());
  }
  return out;
}

void AddHostNodes(const Trace& trace, const HostCalls& host, const std::unordered_set<int64_t>& threads,
                  BuildContext& ctx, HostGpuGraph& g) {
  const auto& calls = trace.api_calls;
  ctx.api_node.assign(calls.size(), kNoNode);
  for (size_t i = 0; i < calls.size(); ++i) {
    if (host.top[i] != static_cast<int64_t>(i) || !threads.contains(calls[i].thread.value())) continue;
    ctx.api_node[i] = static_cast<int32_t>(g.nodes.size());
    PathNode& n = g.nodes.emplace_back();
    n.start_ns = host.start_ns[i];
    n.end_ns = EndOf(calls[i]);
    n.record = {TraceRecordKind::kApiCall, static_cast<int64_t>(i)};
    n.thread = calls[i].thread;
  }
  int32_t prev = kNoNode;
  for (int64_t i : host.order) {  // by thread, then start: top-level calls of a thread in their order
    const int32_t node = ctx.api_node[static_cast<size_t>(i)];
    if (node == kNoNode) continue;
    if (prev != kNoNode && g.nodes[static_cast<size_t>(prev)].thread == g.nodes[static_cast<size_t>(node)].thread) {
      g.nodes[static_cast<size_t>(node)].thread_prev = prev;
    }
    prev = node;
  }
}

void AddGpuNodes(const std::vector<GpuWork>& work, BuildContext& ctx, HostGpuGraph& g) {
  ctx.launch_start_ns.assign(g.nodes.size() + work.size(), kNoLaunch);
  for (const GpuWork& w : work) {
    const int32_t id = static_cast<int32_t>(g.nodes.size());
    PathNode& n = g.nodes.emplace_back();
    n.start_ns = w.start_ns;
    n.end_ns = w.end_ns;
    n.record = w.record;
    n.stream = w.stream;
    if (w.call >= 0) {
      n.launch = ctx.api_node[static_cast<size_t>(w.call)];
      ctx.launch_start_ns[static_cast<size_t>(id)] = g.nodes[static_cast<size_t>(n.launch)].start_ns;
    }
  }
}

// Per stream, in order of start: the previous work is the one that ended last at or before the start
// (overlapping work, as in a graph replay, is skipped), kept only if it was not launched later (P).
void LinkStreams(const BuildContext& ctx, size_t first_gpu, HostGpuGraph& g) {
  struct Key {
    int64_t stream, start_ns, end_ns;
    int32_t node;
    auto operator<=>(const Key&) const = default;
  };
  std::vector<Key> keys;
  keys.reserve(g.nodes.size() - first_gpu);
  for (size_t i = first_gpu; i < g.nodes.size(); ++i) {
    const PathNode& n = g.nodes[i];
    keys.push_back({n.stream.value(), n.start_ns, n.end_ns, static_cast<int32_t>(i)});
  }
  std::sort(keys.begin(), keys.end());
  std::vector<int32_t> order(keys.size());
  for (size_t k = 0; k < keys.size(); ++k) order[k] = keys[k].node;
  keys = {};
  auto node = [&](int32_t id) -> PathNode& { return g.nodes[static_cast<size_t>(id)]; };
  using Ended = std::pair<int64_t, int32_t>;  // (end, node)
  std::priority_queue<Ended, std::vector<Ended>, std::greater<>> running;
  std::vector<int64_t> p(g.nodes.size(), kNoLaunch);
  int32_t best = kNoNode;
  int64_t p_run = kNoLaunch;
  for (size_t k = 0; k < order.size(); ++k) {
    const int32_t w = order[k];
    if (k == 0 || node(order[k - 1]).stream != node(w).stream) {
      running = {};
      best = kNoNode;
      p_run = kNoLaunch;
    }
    const int64_t launch = ctx.launch_start_ns[static_cast<size_t>(w)];
    if (launch != kNoLaunch) p_run = launch;  // unlaunched work inherits P from the work before it
    p[static_cast<size_t>(w)] = p_run;
    while (!running.empty() && running.top().first <= node(w).start_ns) {
      const auto [end, u] = running.top();
      running.pop();
      if (best == kNoNode || ReleasedLater(end, u, node(best).end_ns, best)) best = u;
    }
    if (best != kNoNode && p[static_cast<size_t>(best)] <= p_run) node(w).stream_prev = best;
    running.emplace(node(w).end_ns, w);
  }
}

}  // namespace

bool DeviceScope::Covers(const SyncRecord& sync) const {
  if (sync.device.valid()) return sync.device == device;
  if (sync.stream.valid()) return streams.contains(sync.stream.value());
  if (sync.context.valid()) return contexts.contains(sync.context.value());
  return true;
}

int32_t BuildContext::CallNode(CorrelationId correlation) const {
  if (!correlation.valid()) return kNoNode;
  const auto it = call_of_correlation.find(correlation.value());
  return it == call_of_correlation.end() ? kNoNode : api_node[static_cast<size_t>(it->second)];
}

HostGpuGraph BuildHostGpuGraph(const Trace& trace, DeviceId device) {
  HostGpuGraph g;
  BuildContext ctx;
  ctx.scope.device = device;
  const HostCalls host = IndexHostCalls(trace.api_calls);
  ctx.call_of_correlation = CallsByCorrelation(trace.api_calls, host);
  const std::vector<GpuWork> work = CollectGpuWork(trace, ctx.call_of_correlation, ctx.scope);
  AddHostNodes(trace, host, DeviceThreads(trace, work, ctx), ctx, g);
  const size_t first_gpu = g.nodes.size();
  AddGpuNodes(work, ctx, g);
  LinkStreams(ctx, first_gpu, g);
  LinkWaits(trace, ctx, g);
  std::vector<std::pair<int64_t, int32_t>> ends(g.nodes.size());  // (end, -node)
  for (size_t i = 0; i < g.nodes.size(); ++i) ends[i] = {g.nodes[i].end_ns, -static_cast<int32_t>(i)};
  std::sort(ends.begin(), ends.end());
  g.by_end.resize(ends.size());
  for (size_t i = 0; i < ends.size(); ++i) g.by_end[i] = -ends[i].second;
  return g;
}

}  // namespace nimble::analysis::detail
