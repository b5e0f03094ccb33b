#include <string>

#include "run_ingest.h"

namespace nimble::gui {
namespace {

using store::TimelineRow;
using store::TimelineTable;

const char* CopyKindName(int32_t kind) {
  static constexpr const char* kNames[] = {"?", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};
  return kind >= 0 && kind <= 10 ? kNames[kind] : "?";
}

Status CheckCancel(const std::atomic<bool>* cancel) {
  if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) return Unavailable("loading was cancelled");
  return OkStatus();
}

Status CheckIndex(size_t index, const char* what) {
  if (index > ItemRef::kMaxIndex) {
    return Unimplemented("the run has more than " + std::to_string(ItemRef::kMaxIndex) + " " + what +
                         ", more than the viewer can index");
  }
  return OkStatus();
}

// Reads `table`, calling add(row, index, relative start, relative end) for each row.
template <typename Add>
Status ForEach(const store::TimelineReader& reader, RunId run, TimelineTable table, std::optional<int64_t>& base_ns,
               const std::atomic<bool>* cancel, const char* what, Add add) {
  size_t index = 0;
  return reader.ReadTable(run, table, [&](std::span<const TimelineRow> rows) -> Status {
    NIMBLE_RETURN_IF_ERROR(CheckCancel(cancel));
    for (const TimelineRow& row : rows) {
      NIMBLE_RETURN_IF_ERROR(CheckIndex(index, what));
      if (!base_ns) base_ns = row.start_ns;
      add(row, static_cast<uint32_t>(index++), row.start_ns - *base_ns, row.end_ns - *base_ns);
    }
    return OkStatus();
  });
}

}  // namespace

Status ReadHostTables(const store::TimelineReader& reader, RunId run, std::optional<int64_t>& base_ns,
                      const std::atomic<bool>* cancel, RunTimeline& timeline, LaneSet& lanes, HostTables& out) {
  Trace& trace = out.classifier_trace;
  NIMBLE_RETURN_IF_ERROR(ForEach(reader, run, TimelineTable::kMemcpys, base_ns, cancel, "copies",
      [&](const TimelineRow& r, uint32_t index, int64_t start_ns, int64_t end_ns) {
        const StringId label = timeline.strings.Intern(std::string("Memcpy ") + CopyKindName(r.detail));
        lanes.Staging({LaneKind::kStream, r.device.value(), r.stream.value()})
            .Add(start_ns, end_ns, label.value(), ItemRef(ItemKind::kMemcpy, index));
        timeline.memcpys.push_back({r.bytes, r.correlation.value(), r.detail});
        MemcpyRecord& copy = trace.memcpys.emplace_back();
        copy.start_ns = start_ns;
        copy.end_ns = end_ns;
        copy.device = r.device;
        copy.copy_kind = static_cast<CopyKind>(r.detail);
      }));
  NIMBLE_RETURN_IF_ERROR(ForEach(reader, run, TimelineTable::kMemsets, base_ns, cancel, "sets",
      [&](const TimelineRow& r, uint32_t index, int64_t start_ns, int64_t end_ns) {
        const StringId label = timeline.strings.Intern("Memset");
        lanes.Staging({LaneKind::kStream, r.device.value(), r.stream.value()})
            .Add(start_ns, end_ns, label.value(), ItemRef(ItemKind::kMemset, index));
        timeline.memsets.push_back({r.bytes, r.correlation.value(), r.detail});
      }));
  NIMBLE_RETURN_IF_ERROR(ForEach(reader, run, TimelineTable::kGraphLaunches, base_ns, cancel, "graph launches",
      [&](const TimelineRow& r, uint32_t index, int64_t start_ns, int64_t end_ns) {
        const StringId label = timeline.strings.Intern("CUDA graph " + std::to_string(r.bytes));  // bytes: graph id
        lanes.Staging({LaneKind::kStream, r.device.value(), r.stream.value()})
            .Add(start_ns, end_ns, label.value(), ItemRef(ItemKind::kGraphLaunch, index));
        timeline.graph_launches.push_back({r.bytes, r.correlation.value()});
      }));
  NIMBLE_RETURN_IF_ERROR(ForEach(reader, run, TimelineTable::kSyncs, base_ns, cancel, "syncs",
      [&](const TimelineRow& r, uint32_t, int64_t start_ns, int64_t end_ns) {
        SyncRecord& sync = trace.syncs.emplace_back();
        sync.start_ns = start_ns;
        sync.end_ns = end_ns;
        sync.device = r.device;
        sync.stream = r.stream;  // these three for the critical path through host and GPU
        sync.correlation = r.correlation;
        sync.kind = static_cast<SyncKind>(r.detail);
      }));
  NIMBLE_RETURN_IF_ERROR(ForEach(reader, run, TimelineTable::kApiCalls, base_ns, cancel, "API calls",
      [&](const TimelineRow& r, uint32_t index, int64_t start_ns, int64_t end_ns) {
        lanes.Staging({LaneKind::kHostApi, r.thread.value(), -1})
            .Add(start_ns, end_ns, r.name.value(), ItemRef(ItemKind::kApiCall, index));
        timeline.api_correlation.push_back(r.correlation.value());
      }));
  return ForEach(reader, run, TimelineTable::kRanges, base_ns, cancel, "NVTX ranges",
      [&](const TimelineRow& r, uint32_t index, int64_t start_ns, int64_t end_ns) {
        lanes.Staging({LaneKind::kHostRanges, r.thread.value(), -1})
            .Add(start_ns, end_ns, r.name.value(), ItemRef(ItemKind::kRange, index));
        out.ranges.push_back({r.name, start_ns, end_ns});
      });
}

}  // namespace nimble::gui
