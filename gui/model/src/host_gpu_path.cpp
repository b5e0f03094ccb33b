#include "nimble/gui/host_gpu_path.h"

#include <utility>
#include <vector>

#include "nimble/gui/iteration_detector.h"

namespace nimble::gui {
namespace {

using analysis::PathSegment;
using analysis::PathStep;
using analysis::TraceRecordKind;

size_t RecordCount(const RunTimeline& t) {
  return static_cast<size_t>(t.kernel_count) + t.memcpys.size() + t.memsets.size() + t.graph_launches.size() +
         t.api_correlation.size();
}

CorrelationId At(const std::vector<int64_t>& correlations, size_t index) {
  return index < correlations.size() ? CorrelationId(correlations[index]) : CorrelationId();
}

// Fills the record of one timeline item; items of other kinds (ranges, gaps) are not records of the path.
void AddItem(const RunTimeline& t, const Lane& lane, const RowItems& row, size_t i, Trace& trace) {
  const ItemRef ref = row.ref(i);
  const size_t index = ref.index();
  auto gpu = [&](auto& r) {
    r.start_ns = row.start_ns(i);
    r.end_ns = row.end_ns(i);
    r.device = lane.device;
    r.stream = lane.stream;
  };
  switch (ref.kind()) {
    case ItemKind::kKernel: {
      if (index >= trace.kernels.size()) return;
      KernelRecord& k = trace.kernels[index];
      gpu(k);
      k.correlation = At(t.kernel_correlation, index);
      k.short_name = StringId(row.label(i));
      k.name = k.short_name;
      return;
    }
    case ItemKind::kMemcpy: {
      if (index >= trace.memcpys.size()) return;
      MemcpyRecord& c = trace.memcpys[index];
      gpu(c);
      c.correlation = CorrelationId(t.memcpys[index].correlation);
      c.copy_kind = static_cast<CopyKind>(t.memcpys[index].kind);
      c.bytes = t.memcpys[index].bytes;
      return;
    }
    case ItemKind::kMemset: {
      if (index >= trace.memsets.size()) return;
      MemsetRecord& m = trace.memsets[index];
      gpu(m);
      m.correlation = CorrelationId(t.memsets[index].correlation);
      m.bytes = t.memsets[index].bytes;
      return;
    }
    case ItemKind::kGraphLaunch: {
      if (index >= trace.graph_launches.size()) return;
      GraphLaunchRecord& g = trace.graph_launches[index];
      gpu(g);
      g.correlation = CorrelationId(t.graph_launches[index].correlation);
      g.graph_id = t.graph_launches[index].graph_id;
      return;
    }
    case ItemKind::kApiCall: {
      if (index >= trace.api_calls.size()) return;
      ApiCallRecord& a = trace.api_calls[index];
      a.start_ns = row.start_ns(i);
      a.end_ns = row.end_ns(i);
      a.thread = lane.thread;
      a.correlation = At(t.api_correlation, index);
      a.name = StringId(row.label(i));
      return;
    }
    case ItemKind::kRange:
    case ItemKind::kGap: return;
  }
}

std::optional<ItemRef> RefOf(analysis::TraceRecordRef r) {
  const auto index = static_cast<uint32_t>(r.index);
  switch (r.kind) {
    case TraceRecordKind::kApiCall: return ItemRef(ItemKind::kApiCall, index);
    case TraceRecordKind::kKernel: return ItemRef(ItemKind::kKernel, index);
    case TraceRecordKind::kMemcpy: return ItemRef(ItemKind::kMemcpy, index);
    case TraceRecordKind::kMemset: return ItemRef(ItemKind::kMemset, index);
    case TraceRecordKind::kGraphLaunch: return ItemRef(ItemKind::kGraphLaunch, index);
    case TraceRecordKind::kNone: break;
  }
  return std::nullopt;
}

// A time inside the item a segment names: the segment's middle when the segment lies inside it (a
// call, GPU work, the tail of a sync), else its end, where the work or call it precedes begins.
int64_t TimeInItem(const PathSegment& s) {
  switch (s.step) {
    case PathStep::kApiCall:
    case PathStep::kGpuWork:
    case PathStep::kSyncWakeup: return s.start_ns + (s.end_ns - s.start_ns) / 2;
    default: return s.end_ns;
  }
}

// Band rows per lane: empty for a lane without segments, else one per row of the lane.
using Band = std::vector<std::vector<RowItems>>;

void Draw(const RunTimeline& t, DeviceId device, const analysis::TraceCriticalPath& path, Band& band) {
  for (const PathSegment& s : path.segments) {
    const RunTimeline::Location at = LocateSegment(t, device, s);
    if (at.lane < 0) continue;
    const Lane& lane = t.lanes[static_cast<size_t>(at.lane)];
    std::vector<RowItems>& rows = band[static_cast<size_t>(at.lane)];
    if (rows.empty()) rows.resize(lane.rows.size());
    const RowItems& items = lane.rows[static_cast<size_t>(at.row)];
    rows[static_cast<size_t>(at.row)].Add(s.start_ns, s.end_ns, items.label(static_cast<size_t>(at.item)),
                                          items.ref(static_cast<size_t>(at.item)));
  }
}

}  // namespace

Trace TraceOfTimeline(const RunTimeline& t, std::span<const SyncRecord> syncs) {
  Trace trace;
  trace.strings = t.strings;
  trace.kernels.resize(static_cast<size_t>(t.kernel_count));
  trace.memcpys.resize(t.memcpys.size());
  trace.memsets.resize(t.memsets.size());
  trace.graph_launches.resize(t.graph_launches.size());
  trace.api_calls.resize(t.api_correlation.size());
  for (const Lane& lane : t.lanes) {
    if (lane.kind != LaneKind::kStream && lane.kind != LaneKind::kHostApi) continue;
    for (const RowItems& row : lane.rows) {
      for (size_t i = 0; i < row.size(); ++i) AddItem(t, lane, row, i, trace);
    }
  }
  trace.syncs.assign(syncs.begin(), syncs.end());
  return trace;
}

StatusOr<HostGpuPathView> AnalyzeHostGpuPath(std::span<const SyncRecord> syncs,
                                             std::span<const DeviceIdleSummary> devices, RunTimeline& timeline) {
  if (devices.empty()) return NotFound("the run has no GPU activity");
  const size_t records = RecordCount(timeline);
  if (records > kMaxHostGpuPathRecords) {
    return FailedPrecondition("the run has " + std::to_string(records) + " records, more than the " +
                              std::to_string(kMaxHostGpuPathRecords) + " the viewer traces a path through");
  }
  const Trace trace = TraceOfTimeline(timeline, syncs);
  HostGpuPathView out;
  out.device = devices.front().device;
  out.iteration = MedianIteration(timeline.iterations);
  Band band(timeline.lanes.size());
  for (const DeviceIdleSummary& d : devices) {
    const analysis::TraceCriticalPathFinder finder(trace, d.device);
    std::vector<analysis::TimeWindow> windows;
    for (const auto& [start_ns, end_ns] : timeline.iterations) windows.push_back({start_ns, end_ns});
    if (windows.empty()) windows.push_back({d.span_start_ns, d.span_end_ns});
    for (size_t w = 0; w < windows.size(); ++w) {
      analysis::TraceCriticalPath path = finder.Find(windows[w]);
      Draw(timeline, d.device, path, band);
      const bool listed = d.device == out.device && (out.iteration < 0 || static_cast<int32_t>(w) == out.iteration);
      if (listed) out.path = std::move(path);
    }
  }
  for (size_t l = 0; l < band.size(); ++l) {
    for (RowItems& row : band[l]) row.Finish();
    timeline.lanes[l].critical = std::move(band[l]);
  }
  return out;
}

RunTimeline::Location LocateSegment(const RunTimeline& t, DeviceId device, const PathSegment& s) {
  const std::optional<ItemRef> ref = RefOf(s.record);
  if (!ref) return {};
  const int32_t lane = s.thread.valid() ? t.FindLane(LaneKind::kHostApi, DeviceId(), StreamId(), s.thread)
                                        : t.FindLane(LaneKind::kStream, device, s.stream, ThreadId());
  if (lane < 0) return {};
  const int64_t at = TimeInItem(s);
  const std::vector<RowItems>& rows = t.lanes[static_cast<size_t>(lane)].rows;
  for (size_t r = 0; r < rows.size(); ++r) {
    // The item under `at`, or one that starts there; an empty one (zero length) sits at its start.
    for (int64_t tolerance : {int64_t{0}, int64_t{1}}) {
      const int64_t item = rows[r].FindNear(at, tolerance);
      if (item >= 0 && rows[r].ref(static_cast<size_t>(item)) == *ref) {
        return {lane, static_cast<int32_t>(r), item};
      }
    }
  }
  return {};
}

}  // namespace nimble::gui
