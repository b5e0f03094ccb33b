// One complete ("X") event per span of a laid-out run. GPU work and CUDA calls carry torch.profiler's
// categories and arg names ("kernel", "gpu_memcpy", "gpu_memset", "cuda_runtime", "cuda_driver"; "device",
// "stream", "correlation", "External id"), so Kineto readers take them for what they are; the analysis
// tracks carry categories of their own and never a "stream" arg, which those readers take for GPU work.
#include <array>
#include <map>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "export_chrome_events.h"
#include "nimble/analysis/idle_gaps.h"
#include "nimble/analysis/trace_critical_path.h"

namespace nimble::workflow {
namespace {

const char* CopyKindName(CopyKind kind) {
  static constexpr std::array<const char*, 11> kNames = {"Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
                                                         "AtoD",    "DtoA", "DtoD", "HtoH", "PtoP"};
  const auto i = static_cast<size_t>(kind);
  return i < kNames.size() ? kNames[i] : "Unknown";
}

const char* MemoryKindName(MemoryKind kind) {
  static constexpr std::array<const char*, 8> kNames = {"Unknown", "Pageable", "Pinned",        "Device",
                                                        "Array",   "Managed",  "Device Static", "Managed Static"};
  const auto i = static_cast<size_t>(kind);
  return i < kNames.size() ? kNames[i] : "Unknown";
}

const char* SyncKindName(SyncKind kind) {
  switch (kind) {
    case SyncKind::kEventSynchronize: return "Event Sync";
    case SyncKind::kStreamWaitEvent: return "Stream Wait Event";
    case SyncKind::kStreamSynchronize: return "Stream Sync";
    case SyncKind::kContextSynchronize: return "Context Sync";
    case SyncKind::kUnknown: break;
  }
  return "Synchronization";
}

// "cudaLaunchKernel_v7000" → "cudaLaunchKernel": the name torch.profiler shows for the call.
std::string_view ApiName(std::string_view name) {
  const size_t v = name.rfind("_v");
  if (v == std::string_view::npos || v + 2 == name.size()) return name;
  for (size_t i = v + 2; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return name;
  }
  return name.substr(0, v);
}

class SpanWriter {
 public:
  SpanWriter(const ChromeRunContext& run, ChromeJsonWriter& out, ChromeRunSummary& summary)
      : run_(run), trace_(*run.trace), out_(out), summary_(summary) {
    for (const ExternalCorrelation& e : trace_.external_correlations) {
      external_id_.try_emplace(e.correlation.value(), e.external_id);
    }
    FindNextWork();
  }

  Status Write(const TrackSpan& span, const TrackLane& lane) {
    out_.BeginEvent('X');
    Header(span, lane);
    out_.BeginArgs();
    switch (span.source) {
      case SpanSource::kKernel: Kernel(trace_.kernels[static_cast<size_t>(span.index)]); break;
      case SpanSource::kMemcpy: Memcpy(trace_.memcpys[static_cast<size_t>(span.index)]); break;
      case SpanSource::kMemset: Memset(trace_.memsets[static_cast<size_t>(span.index)]); break;
      case SpanSource::kGraphLaunch: GraphLaunch(trace_.graph_launches[static_cast<size_t>(span.index)]); break;
      case SpanSource::kSync: {
        const auto i = static_cast<size_t>(span.index);
        Sync(trace_.syncs[i], run_.timeline->sync_devices[i]);
        break;
      }
      case SpanSource::kApiCall: Api(trace_.api_calls[static_cast<size_t>(span.index)]); break;
      case SpanSource::kRange: Range(trace_.ranges[static_cast<size_t>(span.index)]); break;
      case SpanSource::kGap: Gap(run_.timeline->gaps[static_cast<size_t>(span.index)]); break;
      case SpanSource::kCriticalOp:
      case SpanSource::kAssignedOp: Op(run_.timeline->ops[static_cast<size_t>(span.index)], span.source); break;
      case SpanSource::kSegment: Segment(run_.timeline->segments[static_cast<size_t>(span.index)]); break;
    }
    out_.EndArgs();
    return out_.EndEvent();
  }

 private:
  void Header(const TrackSpan& span, const TrackLane& lane) {
    out_.Str("cat", Category(span));
    out_.Str("name", Name(span));
    out_.Int("pid", lane.pid);
    out_.Int("tid", lane.tid);
    out_.Timestamp(span.start_ns);
    out_.Duration(span.end_ns - span.start_ns);
  }

  std::string_view Category(const TrackSpan& span) const {
    switch (span.source) {
      case SpanSource::kKernel: return "kernel";
      case SpanSource::kMemcpy: return "gpu_memcpy";
      case SpanSource::kMemset: return "gpu_memset";
      case SpanSource::kGraphLaunch: return "cuda_graph";
      case SpanSource::kSync: return "cuda_sync";
      case SpanSource::kApiCall:
        return trace_.api_calls[static_cast<size_t>(span.index)].kind == ApiKind::kDriver ? "cuda_driver"
                                                                                          : "cuda_runtime";
      case SpanSource::kRange: return "user_annotation";
      case SpanSource::kGap: return "gpu_idle";
      case SpanSource::kCriticalOp: return "critical_path";
      case SpanSource::kAssignedOp: return "stream_assignment";
      case SpanSource::kSegment: return "host_gpu_critical_path";
    }
    return "";
  }

  std::string Name(const TrackSpan& span) const {
    const auto i = static_cast<size_t>(span.index);
    switch (span.source) {
      case SpanSource::kKernel: {
        const KernelRecord& k = trace_.kernels[i];
        const std::string& name = trace_.strings.Get(k.name);
        return name.empty() ? trace_.strings.Get(k.short_name) : name;
      }
      case SpanSource::kMemcpy: {
        const MemcpyRecord& c = trace_.memcpys[i];
        return std::string("Memcpy ") + CopyKindName(c.copy_kind) + " (" + MemoryKindName(c.src_kind) + " -> " +
               MemoryKindName(c.dst_kind) + ")";
      }
      case SpanSource::kMemset: return std::string("Memset (") + MemoryKindName(trace_.memsets[i].mem_kind) + ")";
      case SpanSource::kGraphLaunch: return "CUDA graph " + std::to_string(trace_.graph_launches[i].graph_id);
      case SpanSource::kSync: return SyncKindName(trace_.syncs[i].kind);
      case SpanSource::kApiCall: return std::string(ApiName(trace_.strings.Get(trace_.api_calls[i].name)));
      case SpanSource::kRange: return trace_.strings.Get(trace_.ranges[i].text);
      case SpanSource::kGap: return std::string(analysis::GapCauseName(run_.timeline->gaps[i].gap.cause));
      case SpanSource::kCriticalOp:
      case SpanSource::kAssignedOp: return OpName(run_.timeline->ops[i].op);
      case SpanSource::kSegment: {
        const analysis::TraceCriticalPath& path = PathOf(run_.timeline->segments[i]);
        const analysis::PathSegment& segment = path.segments[run_.timeline->segments[i].segment];
        const std::string& name = path.NameOf(segment);
        if (name.empty() || analysis::KindOf(segment.step) == analysis::PathSegmentKind::kWait) {
          return std::string(analysis::PathStepName(segment.step));
        }
        if (segment.step == analysis::PathStep::kHostCpu) return "host CPU before " + std::string(ApiName(name));
        return std::string(segment.step == analysis::PathStep::kApiCall ? ApiName(name) : name);
      }
    }
    return "";
  }

  std::string OpName(OpId op) const {
    const OpGraph& graph = run_.report->graph;
    const auto i = static_cast<size_t>(op.value());
    return i < graph.ops.size() ? graph.ops[i].name : "op " + std::to_string(op.value());
  }

  void Correlation(CorrelationId correlation) {
    const auto external = external_id_.find(correlation.value());
    if (external != external_id_.end()) out_.Int("External id", external->second);
    out_.Int("correlation", correlation.value());
  }

  template <typename Record>
  void GpuWork(const Record& r) {
    Correlation(r.correlation);
    out_.Int("device", r.device.value());
    out_.Int("context", r.context.value());
    out_.Int("stream", r.stream.value());
  }

  void Kernel(const KernelRecord& k) {
    ++summary_.kernels;
    GpuWork(k);
    out_.Int("registers per thread", k.registers_per_thread);
    out_.Int("shared memory", int64_t{k.static_shared_bytes} + k.dynamic_shared_bytes);
    out_.Dims("grid", k.grid);
    out_.Dims("block", k.block);
    if (k.graph_id != 0) out_.Int("graph id", k.graph_id);
    if (k.graph_node_id != 0) out_.Int("graph node id", k.graph_node_id);
  }

  void Memcpy(const MemcpyRecord& c) {
    ++summary_.copies;
    GpuWork(c);
    out_.Int("bytes", c.bytes);
    if (c.graph_node_id != 0) out_.Int("graph node id", c.graph_node_id);
  }

  void Memset(const MemsetRecord& m) {
    ++summary_.copies;
    GpuWork(m);
    out_.Int("bytes", m.bytes);
    out_.Int("value", m.value);
    if (m.graph_node_id != 0) out_.Int("graph node id", m.graph_node_id);
  }

  void GraphLaunch(const GraphLaunchRecord& g) {
    GpuWork(g);
    out_.Int("graph id", g.graph_id);
  }

  // Kineto's arg names, but the stream waited on is not "stream": Kineto readers take every event with a
  // stream for GPU work (HTA's idle time would count a blocked host as busy GPU).
  // `device` is the record's, or for an event wait that names none, the one its stream ran on.
  void Sync(const SyncRecord& s, DeviceId device) {
    out_.Str("cuda_sync_kind", SyncKindName(s.kind));
    out_.Int("correlation", s.correlation.value());
    out_.Int("device", device.value());
    out_.Int("context", s.context.value());
    if (s.stream.valid()) out_.Int("synchronized stream", s.stream.value());
    if (s.event_id != 0) out_.Int("wait_on_cuda_event_id", s.event_id);
  }

  void Api(const ApiCallRecord& a) {
    ++summary_.api_calls;
    Correlation(a.correlation);
    out_.Int("cbid", a.callback_id);
    if (a.return_value != 0) out_.Int("return value", a.return_value);
  }

  void Range(const NvtxRange& r) {
    ++summary_.ranges;
    const std::string& domain = trace_.strings.Get(r.domain);
    if (!domain.empty()) out_.Str("domain", domain);
  }

  void Gap(const TimelineGap& g) {
    ++summary_.idle_gaps;
    summary_.idle_ns += g.gap.dur_ns;
    out_.Int("device", g.device.value());
    out_.Str("cause", analysis::GapCauseName(g.gap.cause));
    if (g.gap.next_stream.valid()) out_.Int("next stream", g.gap.next_stream.value());
    if (g.gap.next_correlation.valid()) out_.Int("next correlation", g.gap.next_correlation.value());
    if (g.gap.next_stream.valid()) {
      const auto next = next_work_.find(NextKey(g));
      if (next != next_work_.end() && !next->second.empty()) out_.Str("next work", next->second);
    }
    out_.Bool("next from graph", g.gap.next_from_graph);
  }

  void Op(const PlacedOp& p, SpanSource source) {
    const OpGraph& graph = run_.report->graph;
    const analysis::GraphReport& report = *run_.report->report.graph;
    const auto i = static_cast<size_t>(p.op.value());
    (source == SpanSource::kCriticalOp ? summary_.critical_path_ops : summary_.assigned_ops) += 1;
    out_.Int("op", p.op.value());
    if (i < graph.ops.size()) out_.Str("kind", graph.ops[i].kind);
    if (i < report.op_time_ns.size()) out_.Int("gpu time (ns)", report.op_time_ns[i]);
    out_.Int("kernels", p.kernels);
    if (p.path_position >= 0) out_.Int("position on path", p.path_position);
    if (p.assigned.valid()) out_.Int("assigned stream", p.assigned.value());
  }

  const analysis::TraceCriticalPath& PathOf(const PathSegmentRef& ref) const {
    return run_.report->report.devices[ref.device_report].run_path;
  }

  void Segment(const PathSegmentRef& ref) {
    ++summary_.trace_critical_path_segments;
    const analysis::PathSegment& s = PathOf(ref).segments[ref.segment];
    out_.Int("device", run_.report->report.devices[ref.device_report].run.device.value());
    out_.Str("step", analysis::PathStepName(s.step));
    out_.Str("part", analysis::PathSegmentKindName(s.kind()));
    if (s.record.kind != analysis::TraceRecordKind::kNone) {
      out_.Str("record", analysis::TraceRecordKindName(s.record.kind));
      out_.Int("record index", s.record.index);
    }
    if (s.stream.valid()) out_.Int("on stream", s.stream.value());  // not "stream": that marks GPU work
    if (s.thread.valid()) out_.Int("on thread", s.thread.value());
  }

  // Names the GPU work that ended each gap: the record of its device and stream that starts at its end.
  void FindNextWork() {
    for (const TimelineGap& g : run_.timeline->gaps) {
      if (g.gap.next_stream.valid()) next_work_.try_emplace(NextKey(g), std::string());
    }
    if (next_work_.empty()) return;
    const auto offer_all = [&](const auto& records, SpanSource source) {
      for (size_t i = 0; i < records.size(); ++i) {
        const auto it = next_work_.find({records[i].device.value(), records[i].stream.value(), records[i].start_ns});
        if (it != next_work_.end() && it->second.empty()) it->second = Name({0, 0, source, static_cast<int64_t>(i)});
      }
    };
    offer_all(trace_.kernels, SpanSource::kKernel);
    offer_all(trace_.memsets, SpanSource::kMemset);
    offer_all(trace_.memcpys, SpanSource::kMemcpy);
    offer_all(trace_.graph_launches, SpanSource::kGraphLaunch);
  }
  using NextKeyType = std::tuple<int32_t, int64_t, int64_t>;  // device, stream, start_ns
  static NextKeyType NextKey(const TimelineGap& g) {
    return {g.device.value(), g.gap.next_stream.value(), g.gap.start_ns + g.gap.dur_ns};
  }

  const ChromeRunContext& run_;
  const Trace& trace_;
  ChromeJsonWriter& out_;
  ChromeRunSummary& summary_;
  std::unordered_map<int64_t, int64_t> external_id_;  // correlation → the caller's id (first record)
  std::map<NextKeyType, std::string> next_work_;
};

}  // namespace

Status WriteRunSpans(const ChromeRunContext& run, ChromeJsonWriter& out, ChromeRunSummary& summary) {
  SpanWriter writer(run, out, summary);
  const RunTimeline& timeline = *run.timeline;
  const TimelineLayout& layout = *run.layout;
  for (size_t t = 0; t < timeline.tracks.size(); ++t) {
    const std::vector<TrackSpan>& spans = timeline.tracks[t].spans;
    for (size_t i = 0; i < spans.size(); ++i) {
      NIMBLE_RETURN_IF_ERROR(writer.Write(spans[i], layout.lanes[static_cast<size_t>(layout.lane_of[t][i])]));
    }
  }
  summary.overflow_tracks += layout.overflow_lanes;
  return OkStatus();
}

}  // namespace nimble::workflow
