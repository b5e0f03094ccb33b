// The host/GPU critical path the slow way, for property tests: every edge that trace_critical_path.h
// defines is listed explicitly (each wait with all of its candidates, found by scanning every record),
// and the walk takes, at each event, the incoming edge with the latest release. Quadratic; small traces.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "nimble/analysis/trace_critical_path.h"

namespace nimble::analysis::testing {

class BruteForceHostGpuPath {
 public:
  BruteForceHostGpuPath(const Trace& trace, DeviceId device) : trace_(trace), device_(device) {
    FindTopLevelCalls();
    AddNodes();
    AddEdges();
  }

  // Segments of the walk (names left out), in time order.
  std::vector<PathSegment> Walk(TimeWindow window) const {
    std::vector<PathSegment> out;
    int final_node = -1;
    for (size_t v = 0; v < nodes_.size(); ++v) {
      const int64_t end = nodes_[v].end_ns;
      if (end > window.end_ns || end <= window.start_ns) continue;
      if (final_node < 0 || end > nodes_[static_cast<size_t>(final_node)].end_ns) final_node = static_cast<int>(v);
    }
    if (final_node < 0) return out;
    int at = 2 * final_node + 1;  // events: 2v start, 2v + 1 end
    int64_t t = nodes_[static_cast<size_t>(final_node)].end_ns;
    for (size_t steps = 0; steps <= 2 * nodes_.size(); ++steps) {
      const Edge* best = nullptr;
      for (const Edge& e : edges_) {
        if (e.to != at) continue;
        if (best == nullptr || std::make_tuple(-e.time_ns, e.priority, e.from / 2) <
                                   std::make_tuple(-best->time_ns, best->priority, best->from / 2)) {
          best = &e;
        }
      }
      if (best == nullptr) break;
      const int64_t from = std::max(best->time_ns, window.start_ns);
      if (t > from) out.push_back(Segment(*best, from, t));
      t = from;
      if (best->time_ns <= window.start_ns) break;
      at = best->from;
    }
    std::reverse(out.begin(), out.end());
    return out;
  }

  size_t edge_count() const { return edges_.size(); }

 private:
  static constexpr int64_t kNone = std::numeric_limits<int64_t>::min();

  struct Node {
    int64_t start_ns = 0, end_ns = 0;
    TraceRecordRef record;
    StreamId stream;
    ThreadId thread;
    int64_t call = -1;  // GPU work: launching top-level call (API index)
    bool host = false;
  };
  struct Edge {
    int from = 0, to = 0;  // events
    int64_t time_ns = 0;   // the release: the from event's time
    PathStep step = PathStep::kGpuWork;
    int record_node = 0;
    int priority = 0;      // ties: lower first
  };

  static int64_t End(int64_t start, int64_t end) { return std::max(start, end); }

  void FindTopLevelCalls() {
    const auto& calls = trace_.api_calls;
    std::vector<size_t> order(calls.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      const auto& x = calls[a];
      const auto& y = calls[b];
      return std::make_tuple(x.thread, x.start_ns, -End(x.start_ns, x.end_ns), a) <
             std::make_tuple(y.thread, y.start_ns, -End(y.start_ns, y.end_ns), b);
    });
    top_.assign(calls.size(), -1);
    start_.assign(calls.size(), 0);
    order_ = order;
    for (size_t k = 0; k < order.size(); ++k) {
      const size_t i = order[k];
      // The latest top-level call before it in the order, on its thread.
      int64_t prev = -1;
      for (size_t j = 0; j < k; ++j) {
        const size_t o = order[j];
        if (calls[o].thread == calls[i].thread && top_[o] == static_cast<int64_t>(o)) prev = static_cast<int64_t>(o);
      }
      const int64_t prev_end = prev < 0 ? kNone : End(calls[static_cast<size_t>(prev)].start_ns, calls[static_cast<size_t>(prev)].end_ns);
      if (prev >= 0 && End(calls[i].start_ns, calls[i].end_ns) <= prev_end) {
        top_[i] = prev;
        start_[i] = calls[i].start_ns;
      } else {
        top_[i] = static_cast<int64_t>(i);
        start_[i] = prev < 0 ? calls[i].start_ns : std::max(calls[i].start_ns, prev_end);
      }
    }
  }

  // The top-level call that a correlation id names: the earliest (start, index) among those holding it.
  int64_t CallOf(CorrelationId correlation) const {
    int64_t best = -1;
    if (!correlation.valid()) return best;
    for (size_t i = 0; i < trace_.api_calls.size(); ++i) {
      if (trace_.api_calls[i].correlation != correlation) continue;
      const int64_t t = top_[i];
      if (best < 0 || std::make_pair(start_[static_cast<size_t>(t)], t) < std::make_pair(start_[static_cast<size_t>(best)], best)) best = t;
    }
    return best;
  }

  template <typename R>
  void AddGpu(TraceRecordKind kind, const std::vector<R>& records) {
    for (size_t i = 0; i < records.size(); ++i) {
      const R& r = records[i];
      if (r.device != device_) continue;
      Node n;
      n.start_ns = r.start_ns;
      n.end_ns = End(r.start_ns, r.end_ns);
      n.record = {kind, static_cast<int64_t>(i)};
      n.stream = r.stream;
      n.call = CallOf(r.correlation);
      gpu_.push_back(n);
      streams_.insert(r.stream.value());
      contexts_.insert(r.context.value());
    }
  }

  bool Covers(const SyncRecord& s) const {
    if (s.device.valid()) return s.device == device_;
    if (s.stream.valid()) return streams_.contains(s.stream.value());
    if (s.context.valid()) return contexts_.contains(s.context.value());
    return true;
  }

  void AddNodes() {
    AddGpu(TraceRecordKind::kKernel, trace_.kernels);
    AddGpu(TraceRecordKind::kMemcpy, trace_.memcpys);
    AddGpu(TraceRecordKind::kMemset, trace_.memsets);
    AddGpu(TraceRecordKind::kGraphLaunch, trace_.graph_launches);
    std::set<int64_t> threads;
    for (const Node& w : gpu_) {
      if (w.call >= 0) threads.insert(trace_.api_calls[static_cast<size_t>(w.call)].thread.value());
    }
    for (const SyncRecord& s : trace_.syncs) {
      const int64_t c = CallOf(s.correlation);
      if (Covers(s) && c >= 0) threads.insert(trace_.api_calls[static_cast<size_t>(c)].thread.value());
    }
    const auto& calls = trace_.api_calls;
    for (size_t i = 0; i < calls.size(); ++i) {
      if (top_[i] != static_cast<int64_t>(i) || !threads.contains(calls[i].thread.value())) continue;
      node_of_call_[static_cast<int64_t>(i)] = static_cast<int>(nodes_.size());
      Node n;
      n.start_ns = start_[i];
      n.end_ns = End(calls[i].start_ns, calls[i].end_ns);
      n.record = {TraceRecordKind::kApiCall, static_cast<int64_t>(i)};
      n.thread = calls[i].thread;
      n.host = true;
      nodes_.push_back(n);
    }
    for (const Node& w : gpu_) nodes_.push_back(w);
  }

  int CallNode(int64_t call) const {
    const auto it = node_of_call_.find(call);
    return it == node_of_call_.end() ? -1 : it->second;
  }
  int64_t LaunchStart(const Node& w) const {
    return w.call < 0 ? kNone : nodes_[static_cast<size_t>(CallNode(w.call))].start_ns;
  }

  void Add(int from_event, int to_event, PathStep step, int record_node, int priority) {
    const Node& f = nodes_[static_cast<size_t>(from_event / 2)];
    edges_.push_back({from_event, to_event, from_event % 2 ? f.end_ns : f.start_ns, step, record_node, priority});
  }

  void AddEdges() {
    const int n = static_cast<int>(nodes_.size());
    for (int v = 0; v < n; ++v) {
      const Node& x = nodes_[static_cast<size_t>(v)];
      Add(2 * v, 2 * v + 1, x.host ? PathStep::kApiCall : PathStep::kGpuWork, v, 0);
      if (x.host) AddThreadEdge(v);
      else AddGpuEdges(v);
    }
    AddWaitEdges();
  }

  void AddThreadEdge(int v) {
    const int64_t call = nodes_[static_cast<size_t>(v)].record.index;
    int64_t prev = -1;
    for (size_t k = 0; k < order_.size() && order_[k] != static_cast<size_t>(call); ++k) {
      const size_t o = order_[k];
      if (trace_.api_calls[o].thread == trace_.api_calls[static_cast<size_t>(call)].thread && top_[o] == static_cast<int64_t>(o)) {
        prev = static_cast<int64_t>(o);
      }
    }
    if (prev >= 0) Add(2 * CallNode(prev) + 1, 2 * v, PathStep::kHostCpu, v, 0);
  }

  // Stream order key of GPU work: (start, end, node).
  bool Before(int u, int w) const {
    const Node& a = nodes_[static_cast<size_t>(u)];
    const Node& b = nodes_[static_cast<size_t>(w)];
    return std::make_tuple(a.start_ns, a.end_ns, u) < std::make_tuple(b.start_ns, b.end_ns, w);
  }

  // P of GPU work: its launch's start, else that of the work before it on its stream.
  int64_t P(int w) const {
    const Node& x = nodes_[static_cast<size_t>(w)];
    if (x.call >= 0) return LaunchStart(x);
    int prev = -1;
    for (int u = 0; u < static_cast<int>(nodes_.size()); ++u) {
      const Node& y = nodes_[static_cast<size_t>(u)];
      if (y.host || y.stream != x.stream || !Before(u, w)) continue;
      if (prev < 0 || Before(prev, u)) prev = u;
    }
    return prev < 0 ? kNone : P(prev);
  }

  void AddGpuEdges(int w) {
    const Node& x = nodes_[static_cast<size_t>(w)];
    if (x.call >= 0) {
      const int c = CallNode(x.call);
      const Node& call = nodes_[static_cast<size_t>(c)];
      if (x.start_ns >= call.end_ns) Add(2 * c + 1, 2 * w, PathStep::kLaunchLatency, w, 2);
      else if (x.start_ns >= call.start_ns) Add(2 * c, 2 * w, PathStep::kApiCall, c, 2);
    }
    int best = -1;
    for (int u = 0; u < static_cast<int>(nodes_.size()); ++u) {
      const Node& y = nodes_[static_cast<size_t>(u)];
      if (y.host || y.stream != x.stream || !Before(u, w) || y.end_ns > x.start_ns) continue;
      if (best < 0 || y.end_ns > nodes_[static_cast<size_t>(best)].end_ns) best = u;
    }
    if (best >= 0 && P(best) <= P(w)) Add(2 * best + 1, 2 * w, PathStep::kStreamQueue, w, 0);
  }

  void AddWaitEdges() {
    const int n = static_cast<int>(nodes_.size());
    for (const SyncRecord& s : trace_.syncs) {
      const int64_t call = CallOf(s.correlation);
      if (!Covers(s) || call < 0 || CallNode(call) < 0) continue;
      const int c = CallNode(call);
      const Node& sc = nodes_[static_cast<size_t>(c)];
      if (s.kind == SyncKind::kStreamWaitEvent) {
        if (!s.stream.valid()) continue;
        int target = -1;
        for (int w = 0; w < n; ++w) {
          const Node& x = nodes_[static_cast<size_t>(w)];
          if (x.host || x.stream != s.stream || x.call < 0 || LaunchStart(x) <= sc.start_ns) continue;
          if (target < 0 || std::make_pair(LaunchStart(x), w) < std::make_pair(LaunchStart(nodes_[static_cast<size_t>(target)]), target)) target = w;
        }
        if (target < 0) continue;
        for (int u = 0; u < n; ++u) {
          const Node& y = nodes_[static_cast<size_t>(u)];
          if (y.host || y.call < 0 || LaunchStart(y) >= sc.start_ns || y.end_ns > nodes_[static_cast<size_t>(target)].start_ns) continue;
          Add(2 * u + 1, 2 * target, PathStep::kEventWait, target, 1);
        }
        continue;
      }
      const bool one_stream = s.kind == SyncKind::kStreamSynchronize && s.stream.valid();
      // A stream sync also waits for what event waits on the stream, called before it, waited for.
      const int64_t waited_before = one_stream ? LastWaitBefore(s.stream, sc.start_ns) : kNone;
      for (int u = 0; u < n; ++u) {
        const Node& y = nodes_[static_cast<size_t>(u)];
        if (y.host || y.call < 0) continue;
        const bool drained = LaunchStart(y) < sc.start_ns && (!one_stream || y.stream == s.stream);
        if (!drained && !(waited_before != kNone && LaunchStart(y) < waited_before)) continue;
        if (y.end_ns > sc.start_ns && y.end_ns <= sc.end_ns) Add(2 * u + 1, 2 * c + 1, PathStep::kSyncWakeup, c, 0);
      }
    }
    for (int w = 0; w < n; ++w) {
      const Node& x = nodes_[static_cast<size_t>(w)];
      if (x.record.kind != TraceRecordKind::kMemcpy || x.call < 0) continue;
      const std::string& name = trace_.strings.Get(trace_.api_calls[static_cast<size_t>(x.call)].name);
      if (name.find("Memcpy") == std::string::npos || name.find("Async") != std::string::npos) continue;
      const int c = CallNode(x.call);
      const Node& sc = nodes_[static_cast<size_t>(c)];
      if (sc.start_ns < x.end_ns && x.end_ns <= sc.end_ns && x.start_ns < sc.end_ns) {
        Add(2 * w + 1, 2 * c + 1, PathStep::kSyncWakeup, c, 0);
      }
    }
  }

  // The start of the latest event-wait call on `stream` that started before `time_ns`, else kNone.
  int64_t LastWaitBefore(StreamId stream, int64_t time_ns) const {
    int64_t out = kNone;
    for (const SyncRecord& s : trace_.syncs) {
      if (s.kind != SyncKind::kStreamWaitEvent || s.stream != stream || !Covers(s)) continue;
      const int64_t call = CallOf(s.correlation);
      if (call < 0 || CallNode(call) < 0) continue;
      const int64_t start = nodes_[static_cast<size_t>(CallNode(call))].start_ns;
      if (start < time_ns) out = std::max(out, start);
    }
    return out;
  }

  PathSegment Segment(const Edge& e, int64_t start_ns, int64_t end_ns) const {
    const Node& r = nodes_[static_cast<size_t>(e.record_node)];
    PathSegment s;
    s.start_ns = start_ns;
    s.end_ns = end_ns;
    s.step = e.step;
    s.record = r.record;
    if (KindOf(e.step) == PathSegmentKind::kHost || e.step == PathStep::kSyncWakeup) s.thread = r.thread;
    else s.stream = r.stream;
    return s;
  }

  const Trace& trace_;
  DeviceId device_;
  std::vector<int64_t> top_, start_;
  std::vector<size_t> order_;
  std::vector<Node> gpu_, nodes_;
  std::map<int64_t, int> node_of_call_;
  std::set<int64_t> streams_, contexts_;
  std::vector<Edge> edges_;
};

}  // namespace nimble::analysis::testing

namespace nimble::analysis {

// Readable segments in test failures.
inline void PrintTo(const PathSegment& s, std::ostream* os) {
  *os << PathStepName(s.step) << " [" << s.start_ns << ", " << s.end_ns << ") " << TraceRecordKindName(s.record.kind)
      << " " << s.record.index;
}

}  // namespace nimble::analysis
