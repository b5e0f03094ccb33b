// The export's GPU activity tables: kernels, copies, memsets, synchronizations and graph launches.
// Their enum columns hold CUPTI's values (nsys copies them from the CUPTI records), which are the
// values of Nimble's CopyKind, MemoryKind and SyncKind.
#include <climits>

#include "nsys_reader.h"

namespace nimble::store::nsys {
namespace {

constexpr TableInfo kKernels{"CUPTI_ACTIVITY_KIND_KERNEL", "import.no_kernels",
                             "the export has no CUPTI_ACTIVITY_KIND_KERNEL table: no kernels were recorded (was CUDA "
                             "traced?)",
                             "import.skipped_kernels"};
constexpr TableInfo kMemcpys{"CUPTI_ACTIVITY_KIND_MEMCPY", "import.no_memcpys",
                             "the export has no CUPTI_ACTIVITY_KIND_MEMCPY table: no memory copies were recorded",
                             "import.skipped_memcpys"};
constexpr TableInfo kMemsets{"CUPTI_ACTIVITY_KIND_MEMSET", "import.no_memsets",
                             "the export has no CUPTI_ACTIVITY_KIND_MEMSET table: no memsets were recorded",
                             "import.skipped_memsets"};
constexpr TableInfo kSyncs{"CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "import.no_syncs",
                           "the export has no CUPTI_ACTIVITY_KIND_SYNCHRONIZATION table: no synchronizations were "
                           "recorded, so no idle gap can be attributed to one",
                           "import.skipped_syncs"};
// Graph-level launches exist only when nsys traced graphs whole (--cuda-graph-trace=graph); by
// default it traces their nodes, as kernels with a graphId, so an absent table is no news.
constexpr TableInfo kGraphLaunches{"CUPTI_ACTIVITY_KIND_GRAPH_TRACE", nullptr, "", "import.skipped_graph_launches"};

constexpr const char* kStartOrder = "ORDER BY start, rowid";
// CUPTI's value for "no stream / no event" in synchronization records (CUPTI_SYNCHRONIZATION_INVALID_VALUE).
constexpr int64_t kCuptiNoValue = 0xFFFFFFFF;
// CUPTI's device and context of a graph launch whose first node is a host node, which has neither.
constexpr int64_t kCuptiNoDevice = INT32_MAX;

constexpr int32_t kMaxCopyKind = static_cast<int32_t>(CopyKind::kPtoP);
constexpr int32_t kMaxMemoryKind = static_cast<int32_t>(MemoryKind::kManagedStatic);
constexpr int32_t kMaxSyncKind = static_cast<int32_t>(SyncKind::kContextSynchronize);

std::vector<Column> GpuColumns(std::initializer_list<Column> more) {
  std::vector<Column> columns = {{"start"},    {"end"},           {"deviceId"},        {"contextId"},
                                 {"streamId"}, {"correlationId"}, {"globalPid", true}};
  columns.insert(columns.end(), more);
  return columns;
}

int32_t Int32(ExportTable& row, int col, int64_t lo) { return static_cast<int32_t>(row.Int(col, lo, INT32_MAX)); }

}  // namespace

template <typename Record>
int64_t NsysReader::ReadGpuActivity(ExportTable& row, Record& r, bool with_stream) {
  row.Interval(0, 1, r.start_ns, r.end_ns);
  r.device = DeviceId(Int32(row, 2, 0));
  r.context = ContextId(row.Int(3, 0, INT64_MAX));
  if (with_stream) r.stream = StreamId(row.Int(4, 0, INT64_MAX));
  if (!row.IsNull(5)) r.correlation = CorrelationId(row.Int(5, 0, INT64_MAX));
  return row.IsNull(6) ? -1 : ProcessOfGlobalId(row.Int(6, INT64_MIN, INT64_MAX));
}

Status NsysReader::ReadKernels() {
  NIMBLE_ASSIGN_OR_RETURN(
      std::optional<ExportTable> t,
      OpenTable(kKernels,
                GpuColumns({{"demangledName"}, {"shortName"}, {"registersPerThread"}, {"gridX"}, {"gridY"},
                            {"gridZ"}, {"blockX"}, {"blockY"}, {"blockZ"}, {"staticSharedMemory"},
                            {"dynamicSharedMemory"}, {"graphNodeId", true}, {"graphId", true}}),
                kStartOrder));
  if (!t) return OkStatus();
  while (true) {
    NIMBLE_ASSIGN_OR_RETURN(bool has_row, t->Next());
    if (!has_row) break;
    KernelRecord k;
    const int64_t process = ReadGpuActivity(*t, k, true);
    k.registers_per_thread = Int32(*t, 9, 0);
    k.grid = Dim3{Int32(*t, 10, 1), Int32(*t, 11, 1), Int32(*t, 12, 1)};
    k.block = Dim3{Int32(*t, 13, 1), Int32(*t, 14, 1), Int32(*t, 15, 1)};
    k.static_shared_bytes = Int32(*t, 16, 0);
    k.dynamic_shared_bytes = Int32(*t, 17, 0);
    k.graph_node_id = t->IntOr(18, 0, 0, INT64_MAX);
    k.graph_id = t->IntOr(19, 0, 0, INT64_MAX);
    if (t->row_ok()) {
      NIMBLE_ASSIGN_OR_RETURN(k.name, StringAt(*t, 7, false));
      NIMBLE_ASSIGN_OR_RETURN(k.short_name, StringAt(*t, 8, false));
    }
    if (!t->row_ok()) {
      t->Skip();
      continue;
    }
    if (process >= 0) gpu_processes_.insert(process);
    out_.trace.kernels.push_back(k);
  }
  Finish(kKernels, *t);
  return OkStatus();
}

Status NsysReader::ReadMemcpys() {
  NIMBLE_ASSIGN_OR_RETURN(std::optional<ExportTable> t,
                          OpenTable(kMemcpys,
                                    GpuColumns({{"bytes"}, {"copyKind"}, {"srcKind", true}, {"dstKind", true},
                                                {"graphNodeId", true}}),
                                    kStartOrder));
  if (!t) return OkStatus();
  while (true) {
    NIMBLE_ASSIGN_OR_RETURN(bool has_row, t->Next());
    if (!has_row) break;
    MemcpyRecord m;
    const int64_t process = ReadGpuActivity(*t, m, true);
    m.bytes = t->Int(7, 0, INT64_MAX);
    if (t->IsNull(8)) t->Fail("copyKind is NULL");
    m.copy_kind = t->Enum<CopyKind>(8, kMaxCopyKind);
    m.src_kind = t->Enum<MemoryKind>(9, kMaxMemoryKind);
    m.dst_kind = t->Enum<MemoryKind>(10, kMaxMemoryKind);
    m.graph_node_id = t->IntOr(11, 0, 0, INT64_MAX);
    if (!t->row_ok()) {
      t->Skip();
      continue;
    }
    if (process >= 0) gpu_processes_.insert(process);
    out_.trace.memcpys.push_back(m);
  }
  Finish(kMemcpys, *t);
  return OkStatus();
}

Status NsysReader::ReadMemsets() {
  NIMBLE_ASSIGN_OR_RETURN(
      std::optional<ExportTable> t,
      OpenTable(kMemsets, GpuColumns({{"value"}, {"bytes"}, {"memKind", true}, {"graphNodeId", true}}), kStartOrder));
  if (!t) return OkStatus();
  while (true) {
    NIMBLE_ASSIGN_OR_RETURN(bool has_row, t->Next());
    if (!has_row) break;
    MemsetRecord m;
    const int64_t process = ReadGpuActivity(*t, m, true);
    // CUPTI's value is unsigned 32-bit; Nimble keeps its bits in an int32.
    m.value = static_cast<int32_t>(static_cast<uint32_t>(t->Int(7, INT32_MIN, UINT32_MAX)));
    m.bytes = t->Int(8, 0, INT64_MAX);
    m.mem_kind = t->Enum<MemoryKind>(9, kMaxMemoryKind);
    m.graph_node_id = t->IntOr(10, 0, 0, INT64_MAX);
    if (!t->row_ok()) {
      t->Skip();
      continue;
    }
    if (process >= 0) gpu_processes_.insert(process);
    out_.trace.memsets.push_back(m);
  }
  Finish(kMemsets, *t);
  return OkStatus();
}

Status NsysReader::ReadSyncs() {
  NIMBLE_ASSIGN_OR_RETURN(std::optional<ExportTable> t,
                          OpenTable(kSyncs, GpuColumns({{"syncType"}, {"eventId"}}), kStartOrder));
  if (!t) return OkStatus();
  while (true) {
    NIMBLE_ASSIGN_OR_RETURN(bool has_row, t->Next());
    if (!has_row) break;
    SyncRecord s;
    const int64_t process = ReadGpuActivity(*t, s, false);
    if (t->IsNull(7)) t->Fail("syncType is NULL");
    s.kind = t->Enum<SyncKind>(7, kMaxSyncKind);
    // As the collector does: only stream syncs and stream waits belong to a stream.
    const int64_t stream = t->Int(4, INT64_MIN, INT64_MAX);
    if (s.kind == SyncKind::kStreamSynchronize || s.kind == SyncKind::kStreamWaitEvent) {
      if (stream < 0) t->Fail("streamId is negative");
      if (stream >= 0 && stream != kCuptiNoValue) s.stream = StreamId(stream);
    }
    s.event_id = t->Int(8, INT64_MIN, INT64_MAX);
    if (!t->row_ok()) {
      t->Skip();
      continue;
    }
    if (process >= 0) gpu_processes_.insert(process);
    out_.trace.syncs.push_back(s);
  }
  Finish(kSyncs, *t);
  return OkStatus();
}

Status NsysReader::ReadGraphLaunches() {
  NIMBLE_ASSIGN_OR_RETURN(std::optional<ExportTable> t,
                          OpenTable(kGraphLaunches, GpuColumns({{"graphId"}}), kStartOrder));
  if (!t) return OkStatus();
  while (true) {
    NIMBLE_ASSIGN_OR_RETURN(bool has_row, t->Next());
    if (!has_row) break;
    GraphLaunchRecord g;
    const int64_t process = ReadGpuActivity(*t, g, true);
    if (g.device.valid() && g.device.value() == kCuptiNoDevice) g.device = DeviceId();
    if (g.context.valid() && g.context.value() == kCuptiNoDevice) g.context = ContextId();
    g.graph_id = t->Int(7, 0, INT64_MAX);
    if (!t->row_ok()) {
      t->Skip();
      continue;
    }
    if (process >= 0) gpu_processes_.insert(process);
    out_.trace.graph_launches.push_back(g);
  }
  Finish(kGraphLaunches, *t);
  return OkStatus();
}

}  // namespace nimble::store::nsys
