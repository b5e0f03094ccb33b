#include "migrations.h"

#include <span>
#include <string>

#include "db_file.h"
#include "nimble/core/activity.h"
#include "nimble/core/op_graph.h"
#include "nimble/store/schema.h"

namespace nimble::store {
namespace {

// Version 1: strings, runs, data-quality stats, the enum tables and the activity tables.
// Time columns are nanoseconds of the recording clock; ids that may be unknown are NULL then.
constexpr const char* kMigration1Tables = R"sql(
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL UNIQUE);
CREATE TABLE runs (
  runId INTEGER PRIMARY KEY, model TEXT NOT NULL, inputs TEXT NOT NULL, device TEXT NOT NULL,
  mode TEXT NOT NULL, command TEXT NOT NULL,
  iterations INTEGER NOT NULL CHECK (iterations >= 0), warmup INTEGER NOT NULL CHECK (warmup >= 0),
  createdUnixS INTEGER NOT NULL);
CREATE TABLE stats (
  runId INTEGER NOT NULL REFERENCES runs(runId), name TEXT NOT NULL, value INTEGER NOT NULL,
  severity TEXT NOT NULL CHECK (severity IN ('', 'info', 'warning', 'error')), description TEXT NOT NULL,
  UNIQUE (runId, name));
CREATE TABLE ENUM_CUDA_MEMCPY_OPER (id INTEGER PRIMARY KEY, name TEXT NOT NULL, label TEXT NOT NULL);
CREATE TABLE ENUM_CUDA_MEM_KIND (id INTEGER PRIMARY KEY, name TEXT NOT NULL, label TEXT NOT NULL);
CREATE TABLE ENUM_CUPTI_SYNC_TYPE (id INTEGER PRIMARY KEY, name TEXT NOT NULL, label TEXT NOT NULL);
CREATE TABLE ENUM_NIMBLE_API_KIND (id INTEGER PRIMARY KEY, name TEXT NOT NULL, label TEXT NOT NULL);
CREATE TABLE TARGET_INFO_GPU (
  runId INTEGER NOT NULL REFERENCES runs(runId), id INTEGER NOT NULL, name TEXT NOT NULL,
  computeMajor INTEGER NOT NULL, computeMinor INTEGER NOT NULL, smCount INTEGER NOT NULL,
  maxThreadsPerSm INTEGER NOT NULL, maxBlocksPerSm INTEGER NOT NULL, maxRegistersPerSm INTEGER NOT NULL,
  maxShmemPerSm INTEGER NOT NULL, maxThreadsPerBlock INTEGER NOT NULL, totalMemory INTEGER NOT NULL,
  clockRateKhz INTEGER NOT NULL, UNIQUE (runId, id));
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (
  runId INTEGER NOT NULL REFERENCES runs(runId), kernelIndex INTEGER NOT NULL,
  start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER, contextId INTEGER, streamId INTEGER, correlationId INTEGER,
  demangledName INTEGER REFERENCES StringIds(id), shortName INTEGER REFERENCES StringIds(id),
  gridX INTEGER NOT NULL, gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL,
  blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL,
  registersPerThread INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL,
  graphNodeId INTEGER NOT NULL, graphId INTEGER NOT NULL,
  CONSTRAINT kernel_end_after_start CHECK (end >= start),
  PRIMARY KEY (runId, kernelIndex)) WITHOUT ROWID;
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (
  runId INTEGER NOT NULL REFERENCES runs(runId), start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER, contextId INTEGER, streamId INTEGER, correlationId INTEGER,
  bytes INTEGER NOT NULL CHECK (bytes >= 0), copyKind INTEGER NOT NULL REFERENCES ENUM_CUDA_MEMCPY_OPER(id),
  srcKind INTEGER NOT NULL REFERENCES ENUM_CUDA_MEM_KIND(id),
  dstKind INTEGER NOT NULL REFERENCES ENUM_CUDA_MEM_KIND(id), graphNodeId INTEGER NOT NULL,
  CONSTRAINT memcpy_end_after_start CHECK (end >= start));
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (
  runId INTEGER NOT NULL REFERENCES runs(runId), start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER, contextId INTEGER, streamId INTEGER, correlationId INTEGER,
  value INTEGER NOT NULL, bytes INTEGER NOT NULL CHECK (bytes >= 0),
  memKind INTEGER NOT NULL REFERENCES ENUM_CUDA_MEM_KIND(id), graphNodeId INTEGER NOT NULL,
  CONSTRAINT memset_end_after_start CHECK (end >= start));
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (
  runId INTEGER NOT NULL REFERENCES runs(runId), start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER, contextId INTEGER, streamId INTEGER, correlationId INTEGER,
  syncType INTEGER NOT NULL REFERENCES ENUM_CUPTI_SYNC_TYPE(id), eventId INTEGER NOT NULL,
  CONSTRAINT sync_end_after_start CHECK (end >= start));
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (
  runId INTEGER NOT NULL REFERENCES runs(runId), start INTEGER NOT NULL, end INTEGER NOT NULL,
  apiKind INTEGER NOT NULL REFERENCES ENUM_NIMBLE_API_KIND(id), processId INTEGER NOT NULL, threadId INTEGER,
  correlationId INTEGER, nameId INTEGER REFERENCES StringIds(id), callbackId INTEGER NOT NULL,
  returnValue INTEGER NOT NULL,
  CONSTRAINT api_end_after_start CHECK (end >= start));
CREATE TABLE NVTX_EVENTS (
  runId INTEGER NOT NULL REFERENCES runs(runId), start INTEGER NOT NULL, end INTEGER NOT NULL,
  threadId INTEGER, textId INTEGER REFERENCES StringIds(id), domainNameId INTEGER REFERENCES StringIds(id),
  CONSTRAINT nvtx_end_after_start CHECK (end >= start));
CREATE TABLE CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION (
  runId INTEGER NOT NULL REFERENCES runs(runId), correlationId INTEGER,
  externalId INTEGER NOT NULL, externalKind INTEGER NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_OVERHEAD (
  runId INTEGER NOT NULL REFERENCES runs(runId), start INTEGER NOT NULL, end INTEGER NOT NULL,
  threadId INTEGER, nameId INTEGER REFERENCES StringIds(id),
  CONSTRAINT overhead_end_after_start CHECK (end >= start));
)sql";

// Indexes of the activity tables: per-run time windows, and joins of API calls to GPU work. They are
// kept up to date as rows arrive: records come nearly in time and correlation order, so new entries
// land at the right edge of each index, which measured no slower than building the indexes once
// after loading (bench/results/store_writer.md). The kernel table, most of a trace's rows, has no
// (runId, correlationId) index: it cost a fifth of the writer's time per kernel, and kernels find
// their API call through runtime_runId_correlationId (docs/schema.md).
constexpr const char* kActivityIndexes = R"sql(
CREATE INDEX kernel_runId_start ON CUPTI_ACTIVITY_KIND_KERNEL (runId, start);
CREATE INDEX memcpy_runId_start ON CUPTI_ACTIVITY_KIND_MEMCPY (runId, start);
CREATE INDEX memcpy_runId_correlationId ON CUPTI_ACTIVITY_KIND_MEMCPY (runId, correlationId);
CREATE INDEX memset_runId_start ON CUPTI_ACTIVITY_KIND_MEMSET (runId, start);
CREATE INDEX memset_runId_correlationId ON CUPTI_ACTIVITY_KIND_MEMSET (runId, correlationId);
CREATE INDEX sync_runId_start ON CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (runId, start);
CREATE INDEX sync_runId_correlationId ON CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (runId, correlationId);
CREATE INDEX runtime_runId_start ON CUPTI_ACTIVITY_KIND_RUNTIME (runId, start);
CREATE INDEX runtime_runId_correlationId ON CUPTI_ACTIVITY_KIND_RUNTIME (runId, correlationId);
CREATE INDEX nvtx_runId_start ON NVTX_EVENTS (runId, start);
CREATE INDEX external_runId_correlationId
  ON CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION (runId, correlationId);
CREATE INDEX overhead_runId_start ON CUPTI_ACTIVITY_KIND_OVERHEAD (runId, start);
)sql";

// Version 2: the model graph, op-to-kernel attribution, the stream assignment and analysis results.
constexpr const char* kMigration2Tables = R"sql(
CREATE TABLE ENUM_NIMBLE_EDGE_KIND (id INTEGER PRIMARY KEY, name TEXT NOT NULL, label TEXT NOT NULL);
CREATE TABLE ops (
  runId INTEGER NOT NULL REFERENCES runs(runId), opId INTEGER NOT NULL CHECK (opId >= 0),
  name TEXT NOT NULL, kind TEXT NOT NULL, outputShapes TEXT NOT NULL,
  gpuTimeNs INTEGER NOT NULL CHECK (gpuTimeNs >= 0), PRIMARY KEY (runId, opId));
CREATE TABLE op_edges (
  runId INTEGER NOT NULL REFERENCES runs(runId), srcOpId INTEGER NOT NULL, dstOpId INTEGER NOT NULL,
  kind INTEGER NOT NULL REFERENCES ENUM_NIMBLE_EDGE_KIND(id), CHECK (srcOpId <> dstOpId));
CREATE INDEX op_edges_runId ON op_edges (runId);
CREATE TABLE op_kernels (
  runId INTEGER NOT NULL REFERENCES runs(runId), opId INTEGER NOT NULL,
  kernelIndex INTEGER NOT NULL CHECK (kernelIndex >= 0));
CREATE INDEX op_kernels_runId_opId ON op_kernels (runId, opId);
CREATE INDEX op_kernels_runId_kernelIndex ON op_kernels (runId, kernelIndex);
CREATE TABLE stream_assignment (
  runId INTEGER PRIMARY KEY REFERENCES runs(runId), numStreams INTEGER NOT NULL CHECK (numStreams >= 0));
CREATE TABLE stream_assignment_ops (
  runId INTEGER NOT NULL REFERENCES runs(runId), opId INTEGER NOT NULL, streamId INTEGER,
  PRIMARY KEY (runId, opId));
CREATE TABLE stream_assignment_syncs (
  runId INTEGER NOT NULL REFERENCES runs(runId), srcOpId INTEGER NOT NULL, dstOpId INTEGER NOT NULL,
  kind INTEGER NOT NULL REFERENCES ENUM_NIMBLE_EDGE_KIND(id));
CREATE INDEX stream_assignment_syncs_runId ON stream_assignment_syncs (runId);
CREATE TABLE metrics (
  runId INTEGER NOT NULL REFERENCES runs(runId), name TEXT NOT NULL, value REAL NOT NULL,
  unit TEXT NOT NULL, windowIndex INTEGER NOT NULL CHECK (windowIndex >= -1));
CREATE INDEX metrics_runId_name ON metrics (runId, name);
CREATE TABLE speedups (
  runId INTEGER NOT NULL REFERENCES runs(runId), mode TEXT NOT NULL, measuredMs REAL NOT NULL,
  predictedMs REAL NOT NULL, baselineMs REAL NOT NULL);
CREATE INDEX speedups_runId ON speedups (runId);
)sql";

// Version 3: the kernel table, most of a trace's rows, keyed for write speed
// (bench/results/store_writer.md):
// - a rowid table whose INTEGER PRIMARY KEY id is (runId << 32) + kernelIndex, instead of a table
//   clustered on (runId, kernelIndex) (WITHOUT ROWID): a run's kernels stay one key range in
//   kernelIndex order, and a row costs a quarter less to insert;
// - kernels found by time through a block range index instead of a B-tree on (runId, start). Kernel
//   records arrive nearly in time order, so each block of kKernelsPerTimeBlock consecutive kernel
//   indexes spans a short time range; a time window reads the blocks that overlap it, then only their
//   kernels. Keeping the B-tree up to date cost a sixth of the writer's time per kernel; a block row
//   costs 1/1024th.
// The kernels of older files are copied into the new table in key order. Its columns repeat version
// 1's on purpose: a migration's SQL stays as it shipped, so it is not shared with a later one.
std::string Migration3Sql() {
  const std::string block = std::to_string(kKernelsPerTimeBlock);
  return R"sql(
CREATE TABLE nimble_kernels_v3 (
  id INTEGER PRIMARY KEY, runId INTEGER NOT NULL REFERENCES runs(runId), kernelIndex INTEGER NOT NULL,
  start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER, contextId INTEGER, streamId INTEGER, correlationId INTEGER,
  demangledName INTEGER REFERENCES StringIds(id), shortName INTEGER REFERENCES StringIds(id),
  gridX INTEGER NOT NULL, gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL,
  blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL,
  registersPerThread INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL,
  graphNodeId INTEGER NOT NULL, graphId INTEGER NOT NULL,
  CONSTRAINT kernel_end_after_start CHECK (end >= start));
INSERT INTO nimble_kernels_v3 SELECT (runId << 32) + kernelIndex, * FROM CUPTI_ACTIVITY_KIND_KERNEL
  ORDER BY runId, kernelIndex;
DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL;
ALTER TABLE nimble_kernels_v3 RENAME TO CUPTI_ACTIVITY_KIND_KERNEL;
CREATE TABLE kernel_time_blocks (
  runId INTEGER NOT NULL REFERENCES runs(runId), firstKernelIndex INTEGER NOT NULL,
  lastKernelIndex INTEGER NOT NULL, minStart INTEGER NOT NULL, maxEnd INTEGER NOT NULL,
  CHECK (lastKernelIndex >= firstKernelIndex), CHECK (maxEnd >= minStart),
  PRIMARY KEY (runId, firstKernelIndex)) WITHOUT ROWID;
INSERT INTO kernel_time_blocks (runId, firstKernelIndex, lastKernelIndex, minStart, maxEnd)
  SELECT runId, kernelIndex / )sql" + block + " * " + block + R"sql(, max(kernelIndex), min(start), max(end)
  FROM CUPTI_ACTIVITY_KIND_KERNEL GROUP BY runId, kernelIndex / )sql" + block + R"sql(;
)sql";
}

// Version 4: a kernel row stores only what varies from launch to launch (bench/results/store_writer.md).
// - The launch configuration (grid, block, registers, shared memory), nine columns that a program
//   repeats over and over, moves to kernel_launch_configs, one row per distinct configuration; a
//   kernel row names its configuration by launchConfigId. The writer keeps the configurations apart
//   in memory (store/src/launch_config_cache.h); the table has no UNIQUE index to keep up to date,
//   which cost 8 us per new configuration. The migration's index only serves its own join.
// - runId and kernelIndex are no longer stored: both are in the key, id = (runId << 32) + kernelIndex.
// The kernel rows move to the table `kernels`, and CUPTI_ACTIVITY_KIND_KERNEL becomes a view with
// exactly version 3's columns, so that every query of the table reads the same rows as before. A row
// costs about 40 % less CPU to insert, and a file is about 30 % smaller.
constexpr const char* kMigration4Sql = R"sql(
CREATE TABLE kernel_launch_configs (
  id INTEGER PRIMARY KEY,
  gridX INTEGER NOT NULL, gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL,
  blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL,
  registersPerThread INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL);
CREATE INDEX nimble_migration4_configs ON kernel_launch_configs (
  gridX, gridY, gridZ, blockX, blockY, blockZ, registersPerThread, staticSharedMemory, dynamicSharedMemory);
CREATE TABLE kernels (
  id INTEGER PRIMARY KEY, start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER, contextId INTEGER, streamId INTEGER, correlationId INTEGER,
  demangledName INTEGER REFERENCES StringIds(id), shortName INTEGER REFERENCES StringIds(id),
  launchConfigId INTEGER NOT NULL REFERENCES kernel_launch_configs(id),
  graphNodeId INTEGER NOT NULL, graphId INTEGER NOT NULL,
  CONSTRAINT kernel_end_after_start CHECK (end >= start));
INSERT INTO kernel_launch_configs (gridX, gridY, gridZ, blockX, blockY, blockZ, registersPerThread,
                                   staticSharedMemory, dynamicSharedMemory)
  SELECT DISTINCT gridX, gridY, gridZ, blockX, blockY, blockZ, registersPerThread, staticSharedMemory,
         dynamicSharedMemory
  FROM CUPTI_ACTIVITY_KIND_KERNEL;
INSERT INTO kernels (id, start, end, deviceId, contextId, streamId, correlationId, demangledName, shortName,
                     launchConfigId, graphNodeId, graphId)
  SELECT k.id, k.start, k.end, k.deviceId, k.contextId, k.streamId, k.correlationId, k.demangledName,
         k.shortName, c.id, k.graphNodeId, k.graphId
  FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN kernel_launch_configs c
    USING (gridX, gridY, gridZ, blockX, blockY, blockZ, registersPerThread, staticSharedMemory, dynamicSharedMemory)
  ORDER BY k.id;
DROP INDEX nimble_migration4_configs;
DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL;
CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS
  SELECT k.id AS id, k.id >> 32 AS runId, k.id & 4294967295 AS kernelIndex, k.start AS start, k.end AS end,
         k.deviceId AS deviceId, k.contextId AS contextId, k.streamId AS streamId,
         k.correlationId AS correlationId, k.demangledName AS demangledName, k.shortName AS shortName,
         c.gridX AS gridX, c.gridY AS gridY, c.gridZ AS gridZ, c.blockX AS blockX, c.blockY AS blockY,
         c.blockZ AS blockZ, c.registersPerThread AS registersPerThread,
         c.staticSharedMemory AS staticSharedMemory, c.dynamicSharedMemory AS dynamicSharedMemory,
         k.graphNodeId AS graphNodeId, k.graphId AS graphId
  FROM kernels k LEFT JOIN kernel_launch_configs c ON c.id = k.launchConfigId;
)sql";

// Version 5: CUDA graph launches recorded at graph level (`nimble-prof record --graph-trace graph`),
// one row per launch of a whole graph, whose nodes have no rows of their own. Named after CUPTI's
// activity kind, like the other activity tables.
constexpr const char* kMigration5Sql = R"sql(
CREATE TABLE CUPTI_ACTIVITY_KIND_GRAPH_TRACE (
  runId INTEGER NOT NULL REFERENCES runs(runId), start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER, contextId INTEGER, streamId INTEGER, correlationId INTEGER, graphId INTEGER NOT NULL,
  CONSTRAINT graph_trace_end_after_start CHECK (end >= start));
CREATE INDEX graph_trace_runId_start ON CUPTI_ACTIVITY_KIND_GRAPH_TRACE (runId, start);
)sql";

// Version 6: content digests (store/src/digests.h): per run and table, the row count and a digest of
// every column of every row the readers load, written at commit and verified on reading. Shared tables
// are digested under run 0. Runs of older files have none until `nimble-prof upgrade` seals them.
constexpr const char* kMigration6Sql = R"sql(
CREATE TABLE run_digests (
  runId INTEGER NOT NULL, tableName TEXT NOT NULL, rowCount INTEGER NOT NULL, digest INTEGER NOT NULL,
  lastRowid INTEGER, PRIMARY KEY (runId, tableName)) WITHOUT ROWID;
)sql";

struct EnumRow {
  int32_t id;
  const char* name;
  const char* label;
};

template <typename E>
constexpr int32_t Id(E e) { return static_cast<int32_t>(e); }

// The enum tables mirror core's enums, whose values are CUPTI's.
constexpr EnumRow kCopyKinds[] = {
    {Id(CopyKind::kUnknown), "CUDA_MEMCPY_KIND_UNKNOWN", "Unknown"},
    {Id(CopyKind::kHtoD), "CUDA_MEMCPY_KIND_HTOD", "Host-to-Device"},
    {Id(CopyKind::kDtoH), "CUDA_MEMCPY_KIND_DTOH", "Device-to-Host"},
    {Id(CopyKind::kHtoA), "CUDA_MEMCPY_KIND_HTOA", "Host-to-Array"},
    {Id(CopyKind::kAtoH), "CUDA_MEMCPY_KIND_ATOH", "Array-to-Host"},
    {Id(CopyKind::kAtoA), "CUDA_MEMCPY_KIND_ATOA", "Array-to-Array"},
    {Id(CopyKind::kAtoD), "CUDA_MEMCPY_KIND_ATOD", "Array-to-Device"},
    {Id(CopyKind::kDtoA), "CUDA_MEMCPY_KIND_DTOA", "Device-to-Array"},
    {Id(CopyKind::kDtoD), "CUDA_MEMCPY_KIND_DTOD", "Device-to-Device"},
    {Id(CopyKind::kHtoH), "CUDA_MEMCPY_KIND_HTOH", "Host-to-Host"},
    {Id(CopyKind::kPtoP), "CUDA_MEMCPY_KIND_PTOP", "Peer-to-Peer"},
};
constexpr EnumRow kMemoryKinds[] = {
    {Id(MemoryKind::kUnknown), "CUDA_MEMOPR_MEMORY_KIND_UNKNOWN", "Unknown"},
    {Id(MemoryKind::kPageable), "CUDA_MEMOPR_MEMORY_KIND_PAGEABLE", "Pageable"},
    {Id(MemoryKind::kPinned), "CUDA_MEMOPR_MEMORY_KIND_PINNED", "Pinned"},
    {Id(MemoryKind::kDevice), "CUDA_MEMOPR_MEMORY_KIND_DEVICE", "Device"},
    {Id(MemoryKind::kArray), "CUDA_MEMOPR_MEMORY_KIND_ARRAY", "Array"},
    {Id(MemoryKind::kManaged), "CUDA_MEMOPR_MEMORY_KIND_MANAGED", "Managed"},
    {Id(MemoryKind::kDeviceStatic), "CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC", "Device Static"},
    {Id(MemoryKind::kManagedStatic), "CUDA_MEMOPR_MEMORY_KIND_MANAGED_STATIC", "Managed Static"},
};
constexpr EnumRow kSyncKinds[] = {
    {Id(SyncKind::kUnknown), "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN", "Unknown"},
    {Id(SyncKind::kEventSynchronize), "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE", "Event sync"},
    {Id(SyncKind::kStreamWaitEvent), "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT", "Stream wait event"},
    {Id(SyncKind::kStreamSynchronize), "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE", "Stream sync"},
    {Id(SyncKind::kContextSynchronize), "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE", "Context sync"},
};
constexpr EnumRow kApiKinds[] = {
    {Id(ApiKind::kRuntime), "NIMBLE_API_KIND_RUNTIME", "CUDA runtime API"},
    {Id(ApiKind::kDriver), "NIMBLE_API_KIND_DRIVER", "CUDA driver API"},
};
constexpr EnumRow kEdgeKinds[] = {
    {Id(EdgeKind::kData), "NIMBLE_EDGE_KIND_DATA", "Data dependency"},
    {Id(EdgeKind::kOrder), "NIMBLE_EDGE_KIND_ORDER", "Ordering of side effects"},
};

Status FillEnumTable(Database& db, const std::string& table, std::span<const EnumRow> rows) {
  NIMBLE_ASSIGN_OR_RETURN(Statement insert, db.Prepare("INSERT INTO " + table + " (id, name, label) VALUES (?, ?, ?)"));
  for (const EnumRow& row : rows) {
    insert.BindInt(1, row.id);
    insert.BindText(2, row.name);
    insert.BindText(3, row.label);
    NIMBLE_RETURN_IF_ERROR(insert.Run());
  }
  return OkStatus();
}

Status Migration1(Database& db) {
  NIMBLE_RETURN_IF_ERROR(db.Exec(kMigration1Tables));
  NIMBLE_RETURN_IF_ERROR(db.Exec(kActivityIndexes));
  NIMBLE_RETURN_IF_ERROR(FillEnumTable(db, "ENUM_CUDA_MEMCPY_OPER", kCopyKinds));
  NIMBLE_RETURN_IF_ERROR(FillEnumTable(db, "ENUM_CUDA_MEM_KIND", kMemoryKinds));
  NIMBLE_RETURN_IF_ERROR(FillEnumTable(db, "ENUM_CUPTI_SYNC_TYPE", kSyncKinds));
  NIMBLE_RETURN_IF_ERROR(FillEnumTable(db, "ENUM_NIMBLE_API_KIND", kApiKinds));
  return db.Exec("PRAGMA application_id = " + std::to_string(kApplicationId));
}

Status Migration2(Database& db) {
  NIMBLE_RETURN_IF_ERROR(db.Exec(kMigration2Tables));
  return FillEnumTable(db, "ENUM_NIMBLE_EDGE_KIND", kEdgeKinds);
}

}  // namespace

Status ApplyMigration(Database& db, int version) {
  switch (version) {
    case 1: NIMBLE_RETURN_IF_ERROR(Migration1(db)); break;
    case 2: NIMBLE_RETURN_IF_ERROR(Migration2(db)); break;
    case 3: NIMBLE_RETURN_IF_ERROR(db.Exec(Migration3Sql())); break;
    case 4: NIMBLE_RETURN_IF_ERROR(db.Exec(kMigration4Sql)); break;
    case 5: NIMBLE_RETURN_IF_ERROR(db.Exec(kMigration5Sql)); break;
    case 6: NIMBLE_RETURN_IF_ERROR(db.Exec(kMigration6Sql)); break;
    default: return Internal(db.path() + ": no migration to schema version " + std::to_string(version));
  }
  return db.Exec("PRAGMA user_version = " + std::to_string(version));
}

}  // namespace nimble::store
