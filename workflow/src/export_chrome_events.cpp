// Metadata and arrows of a laid-out run (its spans: export_chrome_spans.cpp).
#include "export_chrome_events.h"

#include <unordered_map>
#include <vector>

namespace nimble::workflow {
namespace {

Status Metadata(ChromeJsonWriter& out, std::string_view what, int64_t pid, int64_t tid, std::string_view key,
                const std::string* text, int64_t number) {
  out.BeginEvent('M');
  out.Str("name", what);
  out.Int("pid", pid);
  out.Int("tid", tid);
  out.BeginArgs();
  if (text != nullptr) {
    out.Str(key, *text);
  } else {
    out.Int(key, number);
  }
  out.EndArgs();
  return out.EndEvent();
}

// The API call each correlation id was launched by: the runtime call where there is one (the driver call
// inside it carries an id of its own), else the earliest.
std::unordered_map<int64_t, size_t> LaunchingCalls(const Trace& trace) {
  std::unordered_map<int64_t, size_t> calls;
  for (size_t i = 0; i < trace.api_calls.size(); ++i) {
    const ApiCallRecord& a = trace.api_calls[i];
    if (!a.correlation.valid()) continue;
    auto [it, added] = calls.try_emplace(a.correlation.value(), i);
    if (added) continue;
    const ApiCallRecord& held = trace.api_calls[it->second];
    const bool better = (a.kind == ApiKind::kRuntime && held.kind != ApiKind::kRuntime) ||
                        (a.kind == held.kind && a.start_ns < held.start_ns);
    if (better) it->second = i;
  }
  return calls;
}

class FlowWriter {
 public:
  FlowWriter(const ChromeRunContext& run, ChromeJsonWriter& out, int64_t& next_id)
      : layout_(*run.layout), out_(out), next_id_(next_id) {}

  // An arrow from the span of (`from`, from_index) at `from_ns` to that of (`to`, to_index) at `to_ns`;
  // nothing when either span is on no track.
  StatusOr<bool> Write(SpanSource from, size_t from_index, int64_t from_ns, SpanSource to, size_t to_index,
                       int64_t to_ns, std::string_view category, std::string_view name) {
    const int32_t from_lane = layout_.lane_of_source[static_cast<size_t>(from)][from_index];
    const int32_t to_lane = layout_.lane_of_source[static_cast<size_t>(to)][to_index];
    if (from_lane < 0 || to_lane < 0) return false;
    const int64_t id = next_id_++;
    NIMBLE_RETURN_IF_ERROR(End('s', layout_.lanes[static_cast<size_t>(from_lane)], from_ns, id, category, name));
    NIMBLE_RETURN_IF_ERROR(End('f', layout_.lanes[static_cast<size_t>(to_lane)], to_ns, id, category, name));
    return true;
  }

 private:
  Status End(char phase, const TrackLane& lane, int64_t ns, int64_t id, std::string_view category,
             std::string_view name) {
    out_.BeginEvent(phase);
    out_.Str("cat", category);
    out_.Str("name", name);
    out_.Int("id", id);
    out_.Int("pid", lane.pid);
    out_.Int("tid", lane.tid);
    out_.Timestamp(ns);
    if (phase == 'f') out_.Str("bp", "e");  // bind to the slice enclosing the end, not the next one
    return out_.EndEvent();
  }

  const TimelineLayout& layout_;
  ChromeJsonWriter& out_;
  int64_t& next_id_;
};

template <typename Record>
Status LaunchFlows(const std::vector<Record>& records, SpanSource source, const Trace& trace,
                   const std::unordered_map<int64_t, size_t>& calls, FlowWriter& flows, int64_t& count) {
  for (size_t i = 0; i < records.size(); ++i) {
    const Record& r = records[i];
    const auto call = calls.find(r.correlation.value());
    if (!r.correlation.valid() || call == calls.end()) continue;
    const ApiCallRecord& a = trace.api_calls[call->second];
    NIMBLE_ASSIGN_OR_RETURN(const bool written, flows.Write(SpanSource::kApiCall, call->second, a.start_ns, source,
                                                            i, r.start_ns, "ac2g", "launch"));
    count += written ? 1 : 0;
  }
  return OkStatus();
}

}  // namespace

Status WriteRunMetadata(const ChromeRunContext& run, ChromeJsonWriter& out) {
  const RunTimeline& timeline = *run.timeline;
  const TimelineLayout& layout = *run.layout;
  std::vector<bool> shown(timeline.processes.size(), false);
  for (const TrackLane& lane : layout.lanes) shown[timeline.tracks[lane.track].process] = true;
  for (size_t p = 0; p < timeline.processes.size(); ++p) {
    if (!shown[p]) continue;
    const std::string name = run.name_prefix + timeline.processes[p].name;
    NIMBLE_RETURN_IF_ERROR(Metadata(out, "process_name", layout.pids[p], 0, "name", &name, 0));
    NIMBLE_RETURN_IF_ERROR(Metadata(out, "process_sort_index", layout.pids[p], 0, "sort_index", nullptr,
                                    run.process_sort_base + static_cast<int64_t>(p)));
  }
  for (const TrackLane& lane : layout.lanes) {
    NIMBLE_RETURN_IF_ERROR(Metadata(out, "thread_name", lane.pid, lane.tid, "name", &lane.name, 0));
    NIMBLE_RETURN_IF_ERROR(
        Metadata(out, "thread_sort_index", lane.pid, lane.tid, "sort_index", nullptr, lane.sort_index));
  }
  return OkStatus();
}

Status WriteRunFlows(const ChromeRunContext& run, ChromeJsonWriter& out, int64_t& next_flow_id,
                     ChromeRunSummary& summary) {
  const Trace& trace = *run.trace;
  const RunTimeline& timeline = *run.timeline;
  FlowWriter flows(run, out, next_flow_id);
  const std::unordered_map<int64_t, size_t> calls = LaunchingCalls(trace);
  NIMBLE_RETURN_IF_ERROR(LaunchFlows(trace.kernels, SpanSource::kKernel, trace, calls, flows, summary.flows));
  NIMBLE_RETURN_IF_ERROR(LaunchFlows(trace.memcpys, SpanSource::kMemcpy, trace, calls, flows, summary.flows));
  NIMBLE_RETURN_IF_ERROR(LaunchFlows(trace.memsets, SpanSource::kMemset, trace, calls, flows, summary.flows));
  NIMBLE_RETURN_IF_ERROR(
      LaunchFlows(trace.graph_launches, SpanSource::kGraphLaunch, trace, calls, flows, summary.flows));
  for (const TimelineFlow& f : timeline.flows) {
    NIMBLE_ASSIGN_OR_RETURN(const bool written,
                            flows.Write(f.from_source, static_cast<size_t>(f.from_index), f.from_ns, f.to_source,
                                        static_cast<size_t>(f.to_index), f.to_ns, "stream_assignment",
                                        "cross-stream dependency"));
    summary.flows += written ? 1 : 0;
  }
  return OkStatus();
}

}  // namespace nimble::workflow
