#include "trace_loader.h"

#include "integrity.h"

#include <string>
#include <unordered_map>

// The activity tables are read whole, in write order. Their queries say `+runId`, which keeps SQLite
// from filtering through the (runId, start) index and then sorting every row back into rowid order:
// a plain scan in rowid order is several times faster on large runs.

namespace nimble::store {
namespace {

template <typename E>
E EnumAt(const Statement& row, int col) { return static_cast<E>(row.ColumnInt(col)); }

int32_t Int32At(const Statement& row, int col) { return static_cast<int32_t>(row.ColumnInt(col)); }

// Reads start, end, deviceId, contextId, streamId, correlationId from columns first .. first + 5.
template <typename Record>
void ReadGpuActivity(const Statement& row, int first, Record& r) {
  r.start_ns = row.ColumnInt(first);
  r.end_ns = row.ColumnInt(first + 1);
  r.device = row.ColumnId<DeviceId>(first + 2);
  r.context = row.ColumnId<ContextId>(first + 3);
  r.stream = row.ColumnId<StreamId>(first + 4);
  r.correlation = row.ColumnId<CorrelationId>(first + 5);
}

}  // namespace

StatusOr<Trace> TraceLoader::Load() {
  NIMBLE_ASSIGN_OR_RETURN(string_by_id_, db_.Prepare("SELECT value FROM StringIds WHERE id = ?"));
  NIMBLE_RETURN_IF_ERROR(LoadDevices());
  NIMBLE_RETURN_IF_ERROR(LoadKernels());
  NIMBLE_RETURN_IF_ERROR(CheckKernelTimeBlocks(db_, run_, trace_.kernels));
  NIMBLE_RETURN_IF_ERROR(LoadMemcpys());
  NIMBLE_RETURN_IF_ERROR(LoadMemsets());
  NIMBLE_RETURN_IF_ERROR(LoadSyncs());
  NIMBLE_RETURN_IF_ERROR(LoadApiCalls());
  NIMBLE_RETURN_IF_ERROR(LoadRanges());
  NIMBLE_RETURN_IF_ERROR(LoadExternalCorrelations());
  NIMBLE_RETURN_IF_ERROR(LoadOverheads());
  NIMBLE_RETURN_IF_ERROR(LoadGraphLaunches());
  return std::move(trace_);
}

template <typename ReadRow>
Status TraceLoader::ForEachRow(const char* sql, ReadRow read_row) {
  NIMBLE_ASSIGN_OR_RETURN(Statement q, db_.Prepare(sql));
  q.BindInt(1, run_.value());
  while (true) {
    NIMBLE_ASSIGN_OR_RETURN(bool has_row, q.Step());
    if (!has_row) return OkStatus();
    NIMBLE_RETURN_IF_ERROR(read_row(q));
  }
}

StatusOr<StringId> TraceLoader::StringAt(const Statement& row, int col) {
  if (row.ColumnIsNull(col)) return StringId();
  const int64_t db_id = row.ColumnInt(col);
  if (auto it = string_ids_.find(db_id); it != string_ids_.end()) return it->second;
  string_by_id_.BindInt(1, db_id);
  NIMBLE_ASSIGN_OR_RETURN(bool found, string_by_id_.Step());
  if (!found) return DataLoss(db_.path() + ": string id " + std::to_string(db_id) + " is missing from StringIds");
  const StringId id = trace_.strings.Intern(string_by_id_.ColumnText(0));
  string_by_id_.Reset();
  string_ids_.emplace(db_id, id);
  return id;
}

Status TraceLoader::LoadDevices() {
  return ForEachRow(
      "SELECT id, name, computeMajor, computeMinor, smCount, maxThreadsPerSm, maxBlocksPerSm, maxRegistersPerSm, "
      "maxShmemPerSm, maxThreadsPerBlock, totalMemory, clockRateKhz FROM TARGET_INFO_GPU WHERE +runId = ? "
      "ORDER BY rowid",
      [&](const Statement& row) {
        DeviceInfo& d = trace_.devices.emplace_back();
        d.id = DeviceId(Int32At(row, 0));
        d.name = trace_.strings.Intern(row.ColumnText(1));
        d.compute_major = Int32At(row, 2);
        d.compute_minor = Int32At(row, 3);
        d.sm_count = Int32At(row, 4);
        d.max_threads_per_sm = Int32At(row, 5);
        d.max_blocks_per_sm = Int32At(row, 6);
        d.max_registers_per_sm = Int32At(row, 7);
        d.max_shared_bytes_per_sm = Int32At(row, 8);
        d.max_threads_per_block = Int32At(row, 9);
        d.global_memory_bytes = row.ColumnInt(10);
        d.core_clock_khz = Int32At(row, 11);
        return OkStatus();
      });
}

Status TraceLoader::LoadKernels() {
  // The launch configurations are few (one per distinct grid, block, registers and shared memory):
  // read once, they spare each kernel row a join.
  struct LaunchConfig {
    Dim3 grid, block;
    int32_t registers = 0, static_shared = 0, dynamic_shared = 0;
  };
  std::unordered_map<int64_t, LaunchConfig> configs;
  NIMBLE_ASSIGN_OR_RETURN(Statement q, db_.Prepare(
      "SELECT id, gridX, gridY, gridZ, blockX, blockY, blockZ, registersPerThread, staticSharedMemory, "
      "dynamicSharedMemory FROM kernel_launch_configs"));
  while (true) {
    NIMBLE_ASSIGN_OR_RETURN(bool has_row, q.Step());
    if (!has_row) break;
    configs[q.ColumnInt(0)] = {{Int32At(q, 1), Int32At(q, 2), Int32At(q, 3)},
                               {Int32At(q, 4), Int32At(q, 5), Int32At(q, 6)},
                               Int32At(q, 7), Int32At(q, 8), Int32At(q, 9)};
  }
  return ForEachRow(
      "SELECT start, end, deviceId, contextId, streamId, correlationId, demangledName, shortName, launchConfigId, "
      "graphNodeId, graphId, id FROM kernels WHERE id >= (?1 << 32) AND id < ((?1 + 1) << 32) ORDER BY id",
      [&](const Statement& row) -> Status {
        KernelRecord& k = trace_.kernels.emplace_back();
        ReadGpuActivity(row, 0, k);
        NIMBLE_ASSIGN_OR_RETURN(k.name, StringAt(row, 6));
        NIMBLE_ASSIGN_OR_RETURN(k.short_name, StringAt(row, 7));
        const auto config = configs.find(row.ColumnInt(8));
        if (config == configs.end()) {
          return DataLoss(db_.path() + ": kernel " + std::to_string(row.ColumnInt(11) & 0xFFFFFFFF) +
                          " names launch configuration " + std::to_string(row.ColumnInt(8)) +
                          ", which kernel_launch_configs lacks");
        }
        k.grid = config->second.grid;
        k.block = config->second.block;
        k.registers_per_thread = config->second.registers;
        k.static_shared_bytes = config->second.static_shared;
        k.dynamic_shared_bytes = config->second.dynamic_shared;
        k.graph_node_id = row.ColumnInt(9);
        k.graph_id = row.ColumnInt(10);
        return OkStatus();
      });
}

Status TraceLoader::LoadMemcpys() {
  return ForEachRow(
      "SELECT start, end, deviceId, contextId, streamId, correlationId, bytes, copyKind, srcKind, dstKind, "
      "graphNodeId FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE +runId = ? ORDER BY rowid",
      [&](const Statement& row) {
        MemcpyRecord& m = trace_.memcpys.emplace_back();
        ReadGpuActivity(row, 0, m);
        m.bytes = row.ColumnInt(6);
        m.copy_kind = EnumAt<CopyKind>(row, 7);
        m.src_kind = EnumAt<MemoryKind>(row, 8);
        m.dst_kind = EnumAt<MemoryKind>(row, 9);
        m.graph_node_id = row.ColumnInt(10);
        return OkStatus();
      });
}

Status TraceLoader::LoadMemsets() {
  return ForEachRow(
      "SELECT start, end, deviceId, contextId, streamId, correlationId, value, bytes, memKind, graphNodeId "
      "FROM CUPTI_ACTIVITY_KIND_MEMSET WHERE +runId = ? ORDER BY rowid",
      [&](const Statement& row) {
        MemsetRecord& m = trace_.memsets.emplace_back();
        ReadGpuActivity(row, 0, m);
        m.value = Int32At(row, 6);
        m.bytes = row.ColumnInt(7);
        m.mem_kind = EnumAt<MemoryKind>(row, 8);
        m.graph_node_id = row.ColumnInt(9);
        return OkStatus();
      });
}

Status TraceLoader::LoadSyncs() {
  return ForEachRow(
      "SELECT start, end, deviceId, contextId, streamId, correlationId, syncType, eventId "
      "FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION WHERE +runId = ? ORDER BY rowid",
      [&](const Statement& row) {
        SyncRecord& s = trace_.syncs.emplace_back();
        ReadGpuActivity(row, 0, s);
        s.kind = EnumAt<SyncKind>(row, 6);
        s.event_id = row.ColumnInt(7);
        return OkStatus();
      });
}

Status TraceLoader::LoadApiCalls() {
  return ForEachRow(
      "SELECT start, end, apiKind, processId, threadId, correlationId, nameId, callbackId, returnValue "
      "FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE +runId = ? ORDER BY rowid",
      [&](const Statement& row) -> Status {
        ApiCallRecord& a = trace_.api_calls.emplace_back();
        a.start_ns = row.ColumnInt(0);
        a.end_ns = row.ColumnInt(1);
        a.kind = EnumAt<ApiKind>(row, 2);
        a.process = Int32At(row, 3);
        a.thread = row.ColumnId<ThreadId>(4);
        a.correlation = row.ColumnId<CorrelationId>(5);
        NIMBLE_ASSIGN_OR_RETURN(a.name, StringAt(row, 6));
        a.callback_id = Int32At(row, 7);
        a.return_value = Int32At(row, 8);
        return OkStatus();
      });
}

Status TraceLoader::LoadRanges() {
  return ForEachRow(
      "SELECT start, end, threadId, textId, domainNameId FROM NVTX_EVENTS WHERE +runId = ? ORDER BY rowid",
      [&](const Statement& row) -> Status {
        NvtxRange& r = trace_.ranges.emplace_back();
        r.start_ns = row.ColumnInt(0);
        r.end_ns = row.ColumnInt(1);
        r.thread = row.ColumnId<ThreadId>(2);
        NIMBLE_ASSIGN_OR_RETURN(r.text, StringAt(row, 3));
        NIMBLE_ASSIGN_OR_RETURN(r.domain, StringAt(row, 4));
        return OkStatus();
      });
}

Status TraceLoader::LoadExternalCorrelations() {
  return ForEachRow(
      "SELECT correlationId, externalId, externalKind FROM CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION "
      "WHERE +runId = ? ORDER BY rowid",
      [&](const Statement& row) {
        ExternalCorrelation& e = trace_.external_correlations.emplace_back();
        e.correlation = row.ColumnId<CorrelationId>(0);
        e.external_id = row.ColumnInt(1);
        e.external_kind = Int32At(row, 2);
        return OkStatus();
      });
}

Status TraceLoader::LoadOverheads() {
  return ForEachRow(
      "SELECT start, end, threadId, nameId FROM CUPTI_ACTIVITY_KIND_OVERHEAD WHERE +runId = ? ORDER BY rowid",
      [&](const Statement& row) -> Status {
        OverheadRecord& o = trace_.overheads.emplace_back();
        o.start_ns = row.ColumnInt(0);
        o.end_ns = row.ColumnInt(1);
        o.thread = row.ColumnId<ThreadId>(2);
        NIMBLE_ASSIGN_OR_RETURN(o.kind, StringAt(row, 3));
        return OkStatus();
      });
}

Status TraceLoader::LoadGraphLaunches() {
  return ForEachRow(
      "SELECT start, end, deviceId, contextId, streamId, correlationId, graphId "
      "FROM CUPTI_ACTIVITY_KIND_GRAPH_TRACE WHERE +runId = ? ORDER BY rowid",
      [&](const Statement& row) {
        GraphLaunchRecord& g = trace_.graph_launches.emplace_back();
        ReadGpuActivity(row, 0, g);
        g.graph_id = row.ColumnInt(6);
        return OkStatus();
      });
}

}  // namespace nimble::store
