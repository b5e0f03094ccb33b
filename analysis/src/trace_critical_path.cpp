// The walk back from what ended last in a window, over the event graph of host_gpu_graph.h, and the
// result's split and names.
#include "nimble/analysis/trace_critical_path.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <unordered_map>

#include "host_gpu_graph.h"

namespace nimble::analysis {

using detail::HostGpuGraph;
using detail::kNoNode;
using detail::PathNode;

struct TraceCriticalPathFinder::Index {
  HostGpuGraph graph;
};

namespace {

struct Event {
  int32_t node = kNoNode;
  bool end = false;
};

// The edge a walk takes into an event: where from, when that released it, and the segment it makes.
struct Step {
  Event from;
  int64_t time_ns = 0;
  PathStep step = PathStep::kGpuWork;
  int32_t record_node = kNoNode;  // whose record the segment names
};

const PathNode& NodeAt(const HostGpuGraph& g, int32_t id) { return g.nodes[static_cast<size_t>(id)]; }

// GPU work's start: stream order, then stream wait, then launch, the latest release winning.
std::optional<Step> IntoGpuStart(const HostGpuGraph& g, int32_t id) {
  const PathNode& w = NodeAt(g, id);
  std::optional<Step> best;
  auto offer = [&](Step s) {
    if (!best || s.time_ns > best->time_ns) best = s;
  };
  if (w.stream_prev != kNoNode) offer({{w.stream_prev, true}, NodeAt(g, w.stream_prev).end_ns, PathStep::kStreamQueue, id});
  if (w.event_pred != kNoNode) offer({{w.event_pred, true}, NodeAt(g, w.event_pred).end_ns, PathStep::kEventWait, id});
  if (w.launch != kNoNode) {
    const PathNode& c = NodeAt(g, w.launch);
    if (w.start_ns >= c.end_ns) {
      offer({{w.launch, true}, c.end_ns, PathStep::kLaunchLatency, id});
    } else if (w.start_ns >= c.start_ns) {
      offer({{w.launch, false}, c.start_ns, PathStep::kApiCall, w.launch});  // it began inside the call
    }
  }
  return best;
}

std::optional<Step> Into(const HostGpuGraph& g, Event at) {
  const PathNode& v = NodeAt(g, at.node);
  if (at.end) {
    if (v.host() && v.end_pred != kNoNode) {  // the call returned after the GPU work it waited for
      return Step{{v.end_pred, true}, NodeAt(g, v.end_pred).end_ns, PathStep::kSyncWakeup, at.node};
    }
    return Step{{at.node, false}, v.start_ns, v.host() ? PathStep::kApiCall : PathStep::kGpuWork, at.node};
  }
  if (!v.host()) return IntoGpuStart(g, at.node);
  if (v.thread_prev == kNoNode) return std::nullopt;
  return Step{{v.thread_prev, true}, NodeAt(g, v.thread_prev).end_ns, PathStep::kHostCpu, at.node};
}

// The node that ended last at or before the window's end and after its start (ties: the lowest).
int32_t FinalNode(const HostGpuGraph& g, TimeWindow window) {
  const auto it = std::upper_bound(g.by_end.begin(), g.by_end.end(), window.end_ns,
                                   [&](int64_t t, int32_t n) { return t < NodeAt(g, n).end_ns; });
  if (it == g.by_end.begin()) return kNoNode;
  const int32_t last = *(it - 1);
  return NodeAt(g, last).end_ns > window.start_ns ? last : kNoNode;
}

std::string RecordName(const Trace& trace, TraceRecordRef r) {
  const size_t i = static_cast<size_t>(r.index);
  switch (r.kind) {
    case TraceRecordKind::kApiCall: return trace.strings.Get(trace.api_calls[i].name);
    case TraceRecordKind::kKernel: {
      const KernelRecord& k = trace.kernels[i];
      return trace.strings.Get(k.short_name.valid() ? k.short_name : k.name);
    }
    case TraceRecordKind::kMemcpy: {
      static constexpr const char* kKinds[] = {"", " HtoD", " DtoH", " HtoA", " AtoH", " AtoA",
                                               " AtoD", " DtoA", " DtoD", " HtoH", " PtoP"};
      const auto kind = static_cast<size_t>(trace.memcpys[i].copy_kind);
      return std::string("Memcpy") + (kind < std::size(kKinds) ? kKinds[kind] : "");
    }
    case TraceRecordKind::kMemset: return "Memset";
    case TraceRecordKind::kGraphLaunch: return "CUDA graph " + std::to_string(trace.graph_launches[i].graph_id);
    case TraceRecordKind::kNone: break;
  }
  return "";
}

// What decides a record's name, so that each name is built once a path: the interned string of a call
// or kernel, the copy kind, the graph id.
int64_t NameKey(const Trace& trace, TraceRecordRef r) {
  const size_t i = static_cast<size_t>(r.index);
  int64_t what = 0;
  switch (r.kind) {
    case TraceRecordKind::kApiCall: what = trace.api_calls[i].name.value(); break;
    case TraceRecordKind::kKernel: {
      const KernelRecord& k = trace.kernels[i];
      what = (k.short_name.valid() ? k.short_name : k.name).value();
      break;
    }
    case TraceRecordKind::kMemcpy: what = static_cast<int64_t>(trace.memcpys[i].copy_kind); break;
    case TraceRecordKind::kGraphLaunch: what = trace.graph_launches[i].graph_id; break;
    case TraceRecordKind::kMemset:
    case TraceRecordKind::kNone: break;
  }
  return what * 8 + static_cast<int64_t>(r.kind);
}

void Finish(const Trace& trace, TraceCriticalPath& path) {
  std::reverse(path.segments.begin(), path.segments.end());
  std::unordered_map<int64_t, int32_t> by_key;       // name key -> index into names, -1: no name
  std::unordered_map<std::string, int32_t> by_name;  // two keys may give one name
  for (PathSegment& s : path.segments) {
    switch (s.kind()) {
      case PathSegmentKind::kHost: path.host_ns += s.dur_ns(); break;
      case PathSegmentKind::kGpu: path.gpu_ns += s.dur_ns(); break;
      case PathSegmentKind::kWait: path.wait_ns += s.dur_ns(); break;
    }
    const auto [known, fresh] = by_key.try_emplace(NameKey(trace, s.record), -1);
    if (fresh) {
      std::string name = RecordName(trace, s.record);
      if (!name.empty()) {
        const auto [it, inserted] = by_name.try_emplace(std::move(name), static_cast<int32_t>(path.names.size()));
        if (inserted) path.names.push_back(it->first);
        known->second = it->second;
      }
    }
    s.name = known->second;
  }
  path.length_ns = path.end_ns - path.start_ns;
}

PathSegment MakeSegment(const HostGpuGraph& g, const Step& s, int64_t start_ns, int64_t end_ns) {
  const PathNode& r = NodeAt(g, s.record_node);
  PathSegment out;
  out.start_ns = start_ns;
  out.end_ns = end_ns;
  out.step = s.step;
  out.record = r.record;
  if (KindOf(s.step) == PathSegmentKind::kHost || s.step == PathStep::kSyncWakeup) {
    out.thread = r.thread;
  } else {
    out.stream = r.stream;
  }
  return out;
}

}  // namespace

TraceCriticalPathFinder::TraceCriticalPathFinder(const Trace& trace, DeviceId device)
    : trace_(&trace), index_(std::make_unique<const Index>(Index{detail::BuildHostGpuGraph(trace, device)})) {}
TraceCriticalPathFinder::~TraceCriticalPathFinder() = default;
TraceCriticalPathFinder::TraceCriticalPathFinder(TraceCriticalPathFinder&&) noexcept = default;
TraceCriticalPathFinder& TraceCriticalPathFinder::operator=(TraceCriticalPathFinder&&) noexcept = default;

TraceCriticalPath TraceCriticalPathFinder::Find(TimeWindow window) const {
  const HostGpuGraph& g = index_->graph;
  TraceCriticalPath path;
  path.window = window;
  const int32_t last = FinalNode(g, window);
  if (last == kNoNode) return path;
  Event at{last, true};
  int64_t t = NodeAt(g, last).end_ns;
  path.end_ns = t;
  // Each step moves to an earlier event of an acyclic graph: more steps than events is a bug.
  const size_t max_steps = 2 * g.nodes.size() + 1;
  for (size_t steps = 0;; ++steps) {
    if (steps > max_steps) {
      std::fprintf(stderr, "nimble: the host/GPU critical path walk revisited an event (a cycle)\n");
      std::abort();
    }
    const std::optional<Step> s = Into(g, at);
    if (!s) break;
    const int64_t from = std::max(s->time_ns, window.start_ns);
    if (t > from) path.segments.push_back(MakeSegment(g, *s, from, t));
    t = from;
    if (s->time_ns <= window.start_ns) break;
    at = s->from;
  }
  path.start_ns = t;
  Finish(*trace_, path);
  return path;
}

TraceCriticalPath ComputeTraceCriticalPath(const Trace& trace, DeviceId device, TimeWindow window) {
  return TraceCriticalPathFinder(trace, device).Find(window);
}

const std::string& TraceCriticalPath::NameOf(const PathSegment& segment) const {
  static const std::string kEmpty;
  return segment.name >= 0 && static_cast<size_t>(segment.name) < names.size() ? names[static_cast<size_t>(segment.name)]
                                                                                : kEmpty;
}

std::string_view PathStepName(PathStep step) {
  switch (step) {
    case PathStep::kApiCall: return "api_call";
    case PathStep::kHostCpu: return "host_cpu";
    case PathStep::kGpuWork: return "gpu_work";
    case PathStep::kLaunchLatency: return "launch_latency";
    case PathStep::kStreamQueue: return "stream_queue";
    case PathStep::kEventWait: return "event_wait";
    case PathStep::kSyncWakeup: return "sync_wakeup";
  }
  return "?";
}

std::string_view PathStepLabel(PathStep step) {
  switch (step) {
    case PathStep::kApiCall: return "API call";
    case PathStep::kHostCpu: return "CPU before call";
    case PathStep::kGpuWork: return "GPU work";
    case PathStep::kLaunchLatency: return "launch latency";
    case PathStep::kStreamQueue: return "stream queue";
    case PathStep::kEventWait: return "event wait";
    case PathStep::kSyncWakeup: return "sync wake-up";
  }
  return "?";
}

std::string_view PathSegmentKindName(PathSegmentKind kind) {
  switch (kind) {
    case PathSegmentKind::kHost: return "host";
    case PathSegmentKind::kGpu: return "gpu";
    case PathSegmentKind::kWait: return "wait";
  }
  return "?";
}

PathSegmentKind KindOf(PathStep step) {
  switch (step) {
    case PathStep::kApiCall:
    case PathStep::kHostCpu: return PathSegmentKind::kHost;
    case PathStep::kGpuWork: return PathSegmentKind::kGpu;
    default: return PathSegmentKind::kWait;
  }
}

std::string_view TraceRecordKindName(TraceRecordKind kind) {
  switch (kind) {
    case TraceRecordKind::kNone: return "none";
    case TraceRecordKind::kApiCall: return "api_call";
    case TraceRecordKind::kKernel: return "kernel";
    case TraceRecordKind::kMemcpy: return "memcpy";
    case TraceRecordKind::kMemset: return "memset";
    case TraceRecordKind::kGraphLaunch: return "graph_launch";
  }
  return "?";
}

}  // namespace nimble::analysis
