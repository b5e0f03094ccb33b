// The wait edges of the host/GPU event graph (host_gpu_graph.h): stream waits on events, host
// synchronizations and synchronous copies. Each asks "of the work launched before time T (on one stream
// or the whole device), which ended last at or before B?", answered by a tree over the work sorted by
// end: O(n log n) to build, O(log n) a question.
#include <algorithm>
#include <limits>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "host_gpu_graph.h"

namespace nimble::analysis::detail {
namespace {

constexpr int64_t kNoLaunch = std::numeric_limits<int64_t>::min();

struct Query {
  int64_t before_ns = 0;  // T: candidates were launched strictly before
  int64_t bound_ns = 0;   // B: and ended at or before
  int64_t after_ns = 0;   // and strictly after this (a sync that did not block has no edge)
  StreamId stream;        // candidates on this stream only; invalid: the whole device
  int32_t target = kNoNode;
};

// Work sorted by (end, lowest node last among equal ends), over which a tree of minimum launch starts
// answers "the latest end at or before B among work launched before T" in O(log n), built once.
class LatestEnd {
 public:
  LatestEnd(const std::vector<int32_t>& nodes, const BuildContext& ctx, const HostGpuGraph& g) {
    for (int32_t n : nodes) items_.push_back({g.nodes[static_cast<size_t>(n)].end_ns, n, ctx.launch_start_ns[static_cast<size_t>(n)]});
    std::sort(items_.begin(), items_.end(), [](const Item& a, const Item& b) {
      return a.end_ns != b.end_ns ? a.end_ns < b.end_ns : a.node > b.node;
    });
    size_ = 1;
    while (size_ < items_.size()) size_ *= 2;
    min_launch_.assign(2 * size_, std::numeric_limits<int64_t>::max());
    for (size_t i = 0; i < items_.size(); ++i) min_launch_[size_ + i] = items_[i].launch_ns;
    for (size_t i = size_ - 1; i >= 1; --i) min_launch_[i] = std::min(min_launch_[2 * i], min_launch_[2 * i + 1]);
  }

  // (end, node) of the latest-ending work with end <= bound_ns launched before before_ns; node kNoNode if none.
  std::pair<int64_t, int32_t> Query(int64_t before_ns, int64_t bound_ns) const {
    const auto past = std::upper_bound(items_.begin(), items_.end(), bound_ns,
                                       [](int64_t t, const Item& it) { return t < it.end_ns; });
    if (past == items_.begin()) return {0, kNoNode};
    const int64_t i = Rightmost(1, 0, size_, static_cast<size_t>(past - items_.begin()) - 1, before_ns);
    if (i < 0) return {0, kNoNode};
    return {items_[static_cast<size_t>(i)].end_ns, items_[static_cast<size_t>(i)].node};
  }

 private:
  struct Item {
    int64_t end_ns;
    int32_t node;
    int64_t launch_ns;
  };
  // The last position <= last in [lo, lo + width) whose launch is before `before_ns`, or -1.
  int64_t Rightmost(size_t at, size_t lo, size_t width, size_t last, int64_t before_ns) const {
    if (lo > last || min_launch_[at] >= before_ns) return -1;
    if (width == 1) return static_cast<int64_t>(lo);
    const size_t half = width / 2;
    const int64_t right = Rightmost(2 * at + 1, lo + half, half, last, before_ns);
    return right >= 0 ? right : Rightmost(2 * at, lo, half, last, before_ns);
  }

  std::vector<Item> items_;
  size_t size_ = 1;
  std::vector<int64_t> min_launch_;
};

void Offer(int32_t& held, int64_t end_ns, int32_t node, const HostGpuGraph& g) {
  if (held == kNoNode || ReleasedLater(end_ns, node, g.nodes[static_cast<size_t>(held)].end_ns, held)) held = node;
}

// Launched GPU nodes by (launch start, node), overall and per stream.
struct Launched {
  std::vector<int32_t> all;
  std::unordered_map<int64_t, std::vector<int32_t>> by_stream;
};

Launched LaunchOrder(const BuildContext& ctx, const HostGpuGraph& g) {
  Launched out;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (ctx.launch_start_ns[i] != kNoLaunch) out.all.push_back(static_cast<int32_t>(i));
  }
  std::sort(out.all.begin(), out.all.end(), [&](int32_t a, int32_t b) {
    const int64_t la = ctx.launch_start_ns[static_cast<size_t>(a)];
    const int64_t lb = ctx.launch_start_ns[static_cast<size_t>(b)];
    return la != lb ? la < lb : a < b;
  });
  for (int32_t n : out.all) out.by_stream[g.nodes[static_cast<size_t>(n)].stream.value()].push_back(n);
  return out;
}

// The first work enqueued on `stream` after `time_ns`, or kNoNode.
int32_t FirstLaunchedAfter(const Launched& launched, const BuildContext& ctx, StreamId stream, int64_t time_ns) {
  const auto it = launched.by_stream.find(stream.value());
  if (it == launched.by_stream.end()) return kNoNode;
  const auto& list = it->second;
  const auto pos = std::upper_bound(list.begin(), list.end(), time_ns, [&](int64_t t, int32_t n) {
    return t < ctx.launch_start_ns[static_cast<size_t>(n)];
  });
  return pos == list.end() ? kNoNode : *pos;
}

// Per stream, the starts of the calls that made it wait on an event, ascending.
std::unordered_map<int64_t, std::vector<int64_t>> StreamWaitStarts(const Trace& trace, const BuildContext& ctx,
                                                                   const HostGpuGraph& g) {
  std::unordered_map<int64_t, std::vector<int64_t>> out;
  for (const SyncRecord& s : trace.syncs) {
    if (s.kind != SyncKind::kStreamWaitEvent || !s.stream.valid() || !ctx.scope.Covers(s)) continue;
    const int32_t call = ctx.CallNode(s.correlation);
    if (call != kNoNode) out[s.stream.value()].push_back(g.nodes[static_cast<size_t>(call)].start_ns);
  }
  for (auto& [stream, starts] : out) std::sort(starts.begin(), starts.end());
  return out;
}

std::vector<Query> WaitQueries(const Trace& trace, const BuildContext& ctx, const Launched& launched,
                               const HostGpuGraph& g) {
  const auto waits = StreamWaitStarts(trace, ctx, g);
  std::vector<Query> out;
  for (const SyncRecord& s : trace.syncs) {
    if (!ctx.scope.Covers(s)) continue;
    const int32_t call = ctx.CallNode(s.correlation);
    if (call == kNoNode) continue;
    const PathNode& c = g.nodes[static_cast<size_t>(call)];
    if (s.kind == SyncKind::kStreamSynchronize && s.stream.valid()) {
      out.push_back({c.start_ns, c.end_ns, c.start_ns, s.stream, call});
      // The stream also drains what an event wait enqueued on it before the sync made it wait for:
      // work on the device launched before the last such wait.
      const auto it = waits.find(s.stream.value());
      if (it == waits.end()) continue;
      const auto last = std::lower_bound(it->second.begin(), it->second.end(), c.start_ns);
      if (last != it->second.begin()) out.push_back({*(last - 1), c.end_ns, c.start_ns, StreamId(), call});
      continue;
    }
    if (s.kind == SyncKind::kStreamWaitEvent) {
      // The host does not block: the waiting stream's next work does, on work enqueued before the wait.
      if (!s.stream.valid()) continue;
      const int32_t next = FirstLaunchedAfter(launched, ctx, s.stream, c.start_ns);
      if (next == kNoNode) continue;
      out.push_back({c.start_ns, g.nodes[static_cast<size_t>(next)].start_ns, kNoLaunch, StreamId(), next});
      continue;
    }
    out.push_back({c.start_ns, c.end_ns, c.start_ns, StreamId(), call});
  }
  return out;
}

// cudaMemcpy, cuMemcpyDtoH...: the call returns once its copy is done; the ...Async forms do not.
bool IsSynchronousCopy(std::string_view name) {
  return name.find("Memcpy") != std::string_view::npos && name.find("Async") == std::string_view::npos;
}

void LinkSynchronousCopies(const Trace& trace, HostGpuGraph& g) {
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const PathNode& w = g.nodes[i];
    if (w.record.kind != TraceRecordKind::kMemcpy || w.launch == kNoNode) continue;
    PathNode& c = g.nodes[static_cast<size_t>(w.launch)];
    const ApiCallRecord& call = trace.api_calls[static_cast<size_t>(c.record.index)];
    if (!IsSynchronousCopy(trace.strings.Get(call.name))) continue;
    if (c.start_ns < w.end_ns && w.end_ns <= c.end_ns && w.start_ns < c.end_ns) {
      Offer(c.end_pred, w.end_ns, static_cast<int32_t>(i), g);
    }
  }
}

}  // namespace

void LinkWaits(const Trace& trace, const BuildContext& ctx, HostGpuGraph& g) {
  const Launched launched = LaunchOrder(ctx, g);
  const std::vector<Query> queries = WaitQueries(trace, ctx, launched, g);
  if (!queries.empty()) {
    const LatestEnd device_ends(launched.all, ctx, g);
    std::unordered_map<int64_t, LatestEnd> stream_ends;
    for (const Query& q : queries) {
      const LatestEnd* ends = &device_ends;
      if (q.stream.valid()) {
        const auto list = launched.by_stream.find(q.stream.value());
        if (list == launched.by_stream.end()) continue;
        ends = &stream_ends.try_emplace(q.stream.value(), list->second, ctx, g).first->second;
      }
      const auto [end_ns, node] = ends->Query(q.before_ns, q.bound_ns);
      if (node == kNoNode || end_ns <= q.after_ns) continue;
      PathNode& target = g.nodes[static_cast<size_t>(q.target)];
      Offer(target.host() ? target.end_pred : target.event_pred, end_ns, node, g);
    }
  }
  LinkSynchronousCopies(trace, g);
}

}  // namespace nimble::analysis::detail
