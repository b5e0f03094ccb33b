// The analysis tracks of the Chrome export: idle gaps by cause, the host + GPU critical path, and the
// op-graph critical path and planned stream assignment at the ops' measured times. Everything shown
// comes from the RunReport; only the placement of ops on the timeline (which kernels of the weighing
// iteration each op launched) is looked up here.
#include <algorithm>
#include <limits>

#include "export_chrome_timeline.h"
#include "nimble/analysis/op_weights.h"
#include "nimble/analysis/timeline.h"

namespace nimble::workflow {
namespace {

// Where each op ran in the iteration the report weighed the ops with (the last one, else the whole run):
// its first kernel's start to its last kernel's end. start_ns > end_ns marks an op without kernels there.
StatusOr<std::vector<PlacedOp>> PlaceOps(const Trace& trace, const RunReport& report,
                                         std::span<const KernelAttribution> attribution) {
  const analysis::GraphReport& graph = *report.report.graph;
  const std::vector<analysis::TimeWindow> windows =
      report.iteration_range.empty() ? std::vector<analysis::TimeWindow>{}
                                     : analysis::WindowsFromNvtx(trace, report.iteration_range);
  NIMBLE_ASSIGN_OR_RETURN(const analysis::OpKernels weighed,
                          analysis::WeighOps(graph.num_ops, attribution, analysis::KernelSpans(trace),
                                             analysis::WeighingWindow(windows)));
  std::vector<PlacedOp> placed(static_cast<size_t>(graph.num_ops));
  for (size_t v = 0; v < placed.size(); ++v) {
    PlacedOp& p = placed[v];
    p.op = OpId(static_cast<int32_t>(v));
    p.start_ns = std::numeric_limits<int64_t>::max();
    p.end_ns = std::numeric_limits<int64_t>::min();
    for (KernelIndex k : weighed.of(v)) {
      const KernelRecord& kernel = trace.kernels[static_cast<size_t>(k.value())];
      p.start_ns = std::min(p.start_ns, kernel.start_ns);
      p.end_ns = std::max(p.end_ns, kernel.end_ns);
      ++p.kernels;
    }
    if (v < graph.assignment.op_stream.size()) p.assigned = graph.assignment.op_stream[v];
  }
  return placed;
}

size_t AddTrack(RunTimeline& timeline, size_t process, std::string name) {
  timeline.tracks.push_back({process, -1, std::move(name), {}});
  return timeline.tracks.size() - 1;
}

void AddOpSpan(RunTimeline& timeline, size_t track, SpanSource source, const PlacedOp& op) {
  timeline.ops.push_back(op);
  timeline.tracks[track].spans.push_back(
      {op.start_ns, op.end_ns, source, static_cast<int64_t>(timeline.ops.size() - 1)});
}

}  // namespace

void AddIdleGapTracks(const RunReport& report, std::span<const size_t> device_process,
                      std::span<const DeviceId> devices, RunTimeline& timeline) {
  for (const analysis::DeviceReport& device : report.report.devices) {
    const auto it = std::lower_bound(devices.begin(), devices.end(), device.run.device);
    if (it == devices.end() || *it != device.run.device) continue;  // reported devices all have records
    const size_t track = AddTrack(timeline, device_process[static_cast<size_t>(it - devices.begin())], "Idle gaps");
    for (const analysis::IdleGap& gap : device.run.gaps) {
      if (gap.dur_ns == 0) continue;  // the window's edges: nothing to draw
      timeline.gaps.push_back({device.run.device, gap});
      timeline.tracks[track].spans.push_back({gap.start_ns, gap.start_ns + gap.dur_ns, SpanSource::kGap,
                                              static_cast<int64_t>(timeline.gaps.size() - 1)});
    }
  }
}

Status AddOpTracks(const Trace& trace, const RunReport& report, std::span<const KernelAttribution> attribution,
                   size_t graph_process, RunTimeline& timeline) {
  if (!report.report.graph.has_value() || attribution.empty()) return OkStatus();  // no measured op times
  const analysis::GraphReport& graph = *report.report.graph;
  NIMBLE_ASSIGN_OR_RETURN(std::vector<PlacedOp> placed, PlaceOps(trace, report, attribution));
  const auto measured = [&](OpId op) { return placed[static_cast<size_t>(op.value())].kernels > 0; };

  const size_t path_track = AddTrack(timeline, graph_process, "Critical path (op graph)");
  for (size_t i = 0; i < graph.critical_path.ops.size(); ++i) {
    const OpId op = graph.critical_path.ops[i];
    if (!measured(op)) continue;
    PlacedOp p = placed[static_cast<size_t>(op.value())];
    p.path_position = static_cast<int32_t>(i);
    AddOpSpan(timeline, path_track, SpanSource::kCriticalOp, p);
  }

  if (graph.assignment.num_streams <= 0) return OkStatus();
  const size_t process = timeline.processes.size();
  timeline.processes.push_back({-1, "Stream assignment (planned, " + std::to_string(graph.assignment.num_streams) +
                                        " streams, ops at measured times)",
                                 false});
  const size_t first_track = timeline.tracks.size();
  for (int32_t s = 0; s < graph.assignment.num_streams; ++s) {
    AddTrack(timeline, process, "assigned stream " + std::to_string(s));
  }
  std::vector<int64_t> span_of_op(placed.size(), -1);  // index into timeline.ops
  for (const PlacedOp& p : placed) {
    if (p.kernels == 0 || !p.assigned.valid() || p.assigned.value() >= graph.assignment.num_streams) continue;
    AddOpSpan(timeline, first_track + static_cast<size_t>(p.assigned.value()), SpanSource::kAssignedOp, p);
    span_of_op[static_cast<size_t>(p.op.value())] = static_cast<int64_t>(timeline.ops.size() - 1);
  }
  // The event record/wait pairs of the plan: one arrow per cross-stream edge of the reduced graph.
  for (const OpEdge& edge : graph.assignment.syncs) {
    const int64_t from = span_of_op[static_cast<size_t>(edge.src.value())];
    const int64_t to = span_of_op[static_cast<size_t>(edge.dst.value())];
    if (from < 0 || to < 0) continue;
    timeline.flows.push_back({SpanSource::kAssignedOp, from, timeline.ops[static_cast<size_t>(from)].start_ns,
                              SpanSource::kAssignedOp, to, timeline.ops[static_cast<size_t>(to)].start_ns});
  }
  return OkStatus();
}

void AddTraceCriticalPathTracks(const RunReport& report, std::span<const size_t> device_process,
                                std::span<const DeviceId> devices, RunTimeline& timeline) {
  for (size_t d = 0; d < report.report.devices.size(); ++d) {
    const analysis::DeviceReport& device = report.report.devices[d];
    const auto it = std::lower_bound(devices.begin(), devices.end(), device.run.device);
    if (it == devices.end() || *it != device.run.device || device.run_path.empty()) continue;
    const size_t track =
        AddTrack(timeline, device_process[static_cast<size_t>(it - devices.begin())], "Critical path (host + GPU)");
    for (size_t i = 0; i < device.run_path.segments.size(); ++i) {
      const analysis::PathSegment& segment = device.run_path.segments[i];
      timeline.segments.push_back({d, i});
      timeline.tracks[track].spans.push_back({segment.start_ns, segment.end_ns, SpanSource::kSegment,
                                              static_cast<int64_t>(timeline.segments.size() - 1)});
    }
  }
}

}  // namespace nimble::workflow
