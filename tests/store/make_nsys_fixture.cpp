// The writer half of the schema-synthetic exports: the published schema's tables (every column up to
// the ones the reader needs, in the published order) and the rows of a fixture in nsys' encoding.
#include "make_nsys_fixture.h"

#include <algorithm>
#include <climits>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <vector>

#include "sqlite_db.h"

namespace nimble::store::testing {
namespace {

// "NN" marks the columns the published schema declares NOT NULL.
constexpr const char* kGpuActivity =
    "start INTEGER NN, end INTEGER NN, deviceId INTEGER NN, contextId INTEGER NN, greenContextId INTEGER, "
    "streamId INTEGER NN, correlationId INTEGER, globalPid INTEGER";

const std::map<std::string, std::string>& Ddl() {
  static const std::map<std::string, std::string> ddl = {
      {"StringIds", "id INTEGER NN PRIMARY KEY, value TEXT NN"},
      {"META_DATA_EXPORT", "name TEXT NN, value TEXT"},
      {"EXPORT_META_DATA", "name TEXT NN, value TEXT"},
      {"TARGET_INFO_SESSION_START_TIME", "utcEpochNs INTEGER, utcTime TEXT, localTime TEXT"},
      {"TARGET_INFO_GPU",
       "vmId INTEGER NN, id INTEGER NN, name TEXT, busLocation TEXT, isDiscrete INTEGER, l2CacheSize INTEGER, "
       "totalMemory INTEGER, memoryBandwidth INTEGER, clockRate INTEGER, smCount INTEGER, pwGpuId INTEGER, uuid TEXT, "
       "luid INTEGER, chipName TEXT, cuDevice INTEGER, ctxswDevPath TEXT, ctrlDevPath TEXT, revision INTEGER, "
       "nodeMask INTEGER, constantMemory INTEGER, maxIPC INTEGER, maxRegistersPerBlock INTEGER, "
       "maxShmemPerBlock INTEGER, maxShmemPerBlockOptin INTEGER, maxShmemPerSm INTEGER, maxRegistersPerSm INTEGER, "
       "threadsPerWarp INTEGER, asyncEngines INTEGER, maxWarpsPerSm INTEGER, maxBlocksPerSm INTEGER, "
       "maxThreadsPerBlock INTEGER, maxBlockDimX INTEGER, maxBlockDimY INTEGER, maxBlockDimZ INTEGER, "
       "maxGridDimX INTEGER, maxGridDimY INTEGER, maxGridDimZ INTEGER, computeMajor INTEGER, computeMinor INTEGER, "
       "smMajor INTEGER, smMinor INTEGER, numaNodeId INTEGER"},
      {"CUPTI_ACTIVITY_KIND_KERNEL",
       std::string(kGpuActivity) +
           ", demangledName INTEGER NN, shortName INTEGER NN, mangledName INTEGER, launchType INTEGER, "
           "cacheConfig INTEGER, registersPerThread INTEGER NN, gridX INTEGER NN, gridY INTEGER NN, gridZ INTEGER NN, "
           "blockX INTEGER NN, blockY INTEGER NN, blockZ INTEGER NN, staticSharedMemory INTEGER NN, "
           "dynamicSharedMemory INTEGER NN, localMemoryPerThread INTEGER NN, localMemoryTotal INTEGER NN, "
           "gridId INTEGER NN, sharedMemoryExecuted INTEGER, graphNodeId INTEGER, sharedMemoryLimitConfig INTEGER, "
           "graphId INTEGER"},
      {"CUPTI_ACTIVITY_KIND_MEMCPY",
       std::string(kGpuActivity) +
           ", bytes INTEGER NN, copyKind INTEGER NN, deprecatedSrcId INTEGER, srcKind INTEGER, dstKind INTEGER, "
           "srcDeviceId INTEGER, srcContextId INTEGER, dstDeviceId INTEGER, dstContextId INTEGER, "
           "migrationCause INTEGER, graphNodeId INTEGER, virtualAddress INTEGER"},
      {"CUPTI_ACTIVITY_KIND_MEMSET",
       std::string(kGpuActivity) + ", value INTEGER NN, bytes INTEGER NN, graphNodeId INTEGER, memKind INTEGER"},
      {"CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
       std::string(kGpuActivity) +
           ", deprecatedSyncType INTEGER, syncType INTEGER NN, eventId INTEGER NN, eventSyncId INTEGER"},
      {"CUPTI_ACTIVITY_KIND_GRAPH_TRACE", std::string(kGpuActivity) + ", graphId INTEGER NN, graphExecId INTEGER NN"},
      {"CUPTI_ACTIVITY_KIND_RUNTIME",
       "start INTEGER NN, end INTEGER NN, eventClass INTEGER NN, globalTid INTEGER, correlationId INTEGER, "
       "nameId INTEGER NN, returnValue INTEGER NN, callchainId INTEGER"},
      {"NVTX_EVENTS",
       "start INTEGER NN, end INTEGER, eventType INTEGER NN, rangeId INTEGER, category INTEGER, color INTEGER, "
       "text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER, domainId INTEGER, uint64Value INTEGER, "
       "int64Value INTEGER, doubleValue REAL, uint32Value INTEGER, int32Value INTEGER, floatValue REAL, "
       "jsonTextId INTEGER, jsonText TEXT, binaryData TEXT, eventId INTEGER NN PRIMARY KEY"},
  };
  return ddl;
}

// A value to bind: NULL, an integer or text.
struct Value {
  enum Kind { kNull, kInt, kText } kind = kNull;
  int64_t i = 0;
  std::string s;
  Value() = default;
  Value(int64_t v) : kind(kInt), i(v) {}  // NOLINT: implicit, for brace lists of row values
  Value(std::string v) : kind(kText), s(std::move(v)) {}  // NOLINT
};
template <typename Id>
Value IdOrNull(Id id) { return id.valid() ? Value(int64_t{id.value()}) : Value(); }

// The rows of one table, inserted in one go (in a shuffled order where the fixture asks).
struct Rows {
  std::string table;
  std::vector<std::string> columns;
  std::vector<std::vector<Value>> rows;
};

class Writer {
 public:
  Writer(Database& db, const NsysFixture& f) : db_(db), f_(f), rng_(f.shuffle_seed) {}

  Status Write();

 private:
  int64_t GlobalId(int64_t tid) const { return f_.machine_bits | (f_.pid << 24) | tid; }
  int64_t GlobalPid() const { return f_.machine_bits | (f_.pid << 24); }
  // StringIds' id of a Trace string: sparse, so that a reader that confuses the two ids fails.
  int64_t StringRef(StringId id) const { return 7 * int64_t{id.value()} + 3; }
  Value StringOrNull(StringId id) const { return id.valid() ? Value(StringRef(id)) : Value(); }
  template <typename Record>
  std::vector<Value> Gpu(const Record& r, Value stream) const {
    return {r.start_ns, r.end_ns, IdOrNull(r.device), IdOrNull(r.context), stream, IdOrNull(r.correlation),
            GlobalPid()};
  }

  Status Create(const std::string& table);
  Status Insert(Rows rows);
  Rows Devices() const;
  Rows Kernels() const;
  Rows Copies() const;
  Rows Sets() const;
  Rows Syncs() const;
  Rows GraphLaunches() const;
  Rows ApiCalls() const;
  Rows Nvtx() const;

  Database& db_;
  const NsysFixture& f_;
  std::mt19937_64 rng_;
};

Status Writer::Create(const std::string& table) {
  std::string columns = Ddl().at(table);
  for (size_t at = 0; (at = columns.find(" NN", at)) != std::string::npos;) {
    columns.replace(at, 3, f_.not_null_constraints ? " NOT NULL" : "");
  }
  return db_.Exec("CREATE TABLE " + table + " (" + columns + ")");
}

Status Writer::Insert(Rows r) {
  // nsys creates a table only for data it has (unless the export ran with --lazy=false); StringIds
  // is always there.
  if (f_.omit_tables.count(r.table) != 0 || (r.rows.empty() && r.table != "StringIds")) return OkStatus();
  NIMBLE_RETURN_IF_ERROR(Create(r.table));
  std::string sql = "INSERT INTO " + r.table + " (";
  std::string marks;
  for (size_t i = 0; i < r.columns.size(); ++i) {
    sql += (i ? ", " : "") + r.columns[i];
    marks += i ? ", ?" : "?";
  }
  NIMBLE_ASSIGN_OR_RETURN(Statement insert, db_.Prepare(sql + ") VALUES (" + marks + ")"));
  std::vector<size_t> order(r.rows.size());
  std::iota(order.begin(), order.end(), 0);
  if (f_.shuffle_seed != 0) std::shuffle(order.begin(), order.end(), rng_);
  for (size_t i : order) {
    const std::vector<Value>& row = r.rows[i];
    for (size_t c = 0; c < row.size(); ++c) {
      const int index = static_cast<int>(c) + 1;
      if (row[c].kind == Value::kInt) insert.BindInt(index, row[c].i);
      if (row[c].kind == Value::kText) insert.BindText(index, row[c].s);
      if (row[c].kind == Value::kNull) insert.BindNull(index);
    }
    NIMBLE_RETURN_IF_ERROR(insert.Run());
  }
  return OkStatus();
}

Status Writer::Write() {
  NIMBLE_RETURN_IF_ERROR(db_.Exec("PRAGMA page_size = 1024; BEGIN"));
  if (f_.meta_table != MetaTable::kNone) {
    Rows meta{f_.meta_table == MetaTable::kMetaDataExport ? "META_DATA_EXPORT" : "EXPORT_META_DATA", {"name", "value"}, {}};
    if (!f_.schema_version.empty()) meta.rows.push_back({std::string("EXPORT_SCHEMA_VERSION"), f_.schema_version});
    if (!f_.product_version.empty()) meta.rows.push_back({std::string("EXPORT_PRODUCT_VERSION"), f_.product_version});
    meta.rows.push_back({std::string("EXPORT_PARAM_LAZY"), std::string("true")});
    NIMBLE_RETURN_IF_ERROR(Insert(std::move(meta)));
  }
  Rows strings{"StringIds", {"id", "value"}, {}};
  for (size_t i = 0; i < f_.trace.strings.size(); ++i) {
    strings.rows.push_back({StringRef(StringId(static_cast<int32_t>(i))), f_.trace.strings.strings()[i]});
  }
  NIMBLE_RETURN_IF_ERROR(Insert(std::move(strings)));
  NIMBLE_RETURN_IF_ERROR(Insert({"TARGET_INFO_SESSION_START_TIME", {"utcEpochNs", "utcTime"},
                                 {{f_.session_start_utc_ns, std::string("2026-05-28T20:26:40Z")}}}));
  for (const auto& make : std::vector<std::function<Rows()>>{
           [&] { return Devices(); }, [&] { return Kernels(); }, [&] { return Copies(); }, [&] { return Sets(); },
           [&] { return Syncs(); }, [&] { return GraphLaunches(); }, [&] { return ApiCalls(); },
           [&] { return Nvtx(); }}) {
    NIMBLE_RETURN_IF_ERROR(Insert(make()));
  }
  return db_.Exec("COMMIT");
}

Rows Writer::Devices() const {
  Rows r{"TARGET_INFO_GPU",
         {"vmId", "id", "name", "totalMemory", "clockRate", "smCount", "cuDevice", "maxShmemPerSm",
          "maxRegistersPerSm", "threadsPerWarp", "maxWarpsPerSm", "maxBlocksPerSm", "maxThreadsPerBlock",
          "computeMajor", "computeMinor"},
         {}};
  for (const DeviceInfo& d : f_.trace.devices) {
    // nsys numbers GPUs its own way; cuDevice is the CUDA ordinal the activity tables use.
    r.rows.push_back({0, int64_t{d.id.value()} + 100,
                      d.name.valid() ? Value(f_.trace.strings.Get(d.name)) : Value(), d.global_memory_bytes,
                      int64_t{d.core_clock_khz} * 1000, d.sm_count, d.id.value(), d.max_shared_bytes_per_sm,
                      d.max_registers_per_sm, 32, d.max_threads_per_sm / 32, d.max_blocks_per_sm,
                      d.max_threads_per_block, d.compute_major, d.compute_minor});
  }
  return r;
}

Rows Writer::Kernels() const {
  Rows r{"CUPTI_ACTIVITY_KIND_KERNEL",
         {"start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid", "demangledName",
          "shortName", "registersPerThread", "gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ",
          "staticSharedMemory", "dynamicSharedMemory", "localMemoryPerThread", "localMemoryTotal", "gridId",
          "graphNodeId", "graphId"},
         {}};
  int64_t grid_id = 1;
  for (const KernelRecord& k : f_.trace.kernels) {
    std::vector<Value> row = Gpu(k, IdOrNull(k.stream));
    for (Value v : {StringOrNull(k.name), StringOrNull(k.short_name), Value(k.registers_per_thread),
                    Value(k.grid.x), Value(k.grid.y), Value(k.grid.z), Value(k.block.x), Value(k.block.y),
                    Value(k.block.z), Value(k.static_shared_bytes), Value(k.dynamic_shared_bytes), Value(0),
                    Value(0), Value(grid_id++),
                    k.graph_node_id != 0 ? Value(k.graph_node_id) : Value(),
                    k.graph_id != 0 ? Value(k.graph_id) : Value()}) {
      row.push_back(v);
    }
    r.rows.push_back(std::move(row));
  }
  return r;
}

Rows Writer::Copies() const {
  Rows r{"CUPTI_ACTIVITY_KIND_MEMCPY",
         {"start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid", "bytes", "copyKind",
          "srcKind", "dstKind", "graphNodeId"},
         {}};
  for (const MemcpyRecord& m : f_.trace.memcpys) {
    std::vector<Value> row = Gpu(m, IdOrNull(m.stream));
    for (Value v : {Value(m.bytes), Value(static_cast<int64_t>(m.copy_kind)), Value(static_cast<int64_t>(m.src_kind)),
                    Value(static_cast<int64_t>(m.dst_kind)),
                    m.graph_node_id != 0 ? Value(m.graph_node_id) : Value()}) {
      row.push_back(v);
    }
    r.rows.push_back(std::move(row));
  }
  return r;
}

Rows Writer::Sets() const {
  Rows r{"CUPTI_ACTIVITY_KIND_MEMSET",
         {"start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid", "value", "bytes",
          "memKind", "graphNodeId"},
         {}};
  for (const MemsetRecord& m : f_.trace.memsets) {
    std::vector<Value> row = Gpu(m, IdOrNull(m.stream));
    // CUPTI's value is unsigned: nsys stores the 32 bits as a non-negative number.
    for (Value v : {Value(int64_t{static_cast<uint32_t>(m.value)}), Value(m.bytes),
                    Value(static_cast<int64_t>(m.mem_kind)), m.graph_node_id != 0 ? Value(m.graph_node_id) : Value()}) {
      row.push_back(v);
    }
    r.rows.push_back(std::move(row));
  }
  return r;
}

Rows Writer::Syncs() const {
  Rows r{"CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
         {"start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid", "syncType", "eventId"},
         {}};
  for (const SyncRecord& s : f_.trace.syncs) {
    // CUPTI's "none" (0xFFFFFFFF) where the synchronization belongs to no stream.
    std::vector<Value> row = Gpu(s, s.stream.valid() ? Value(s.stream.value()) : Value(int64_t{0xFFFFFFFF}));
    row.push_back(Value(static_cast<int64_t>(s.kind)));
    row.push_back(Value(s.event_id));
    r.rows.push_back(std::move(row));
  }
  return r;
}

Rows Writer::GraphLaunches() const {
  Rows r{"CUPTI_ACTIVITY_KIND_GRAPH_TRACE",
         {"start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid", "graphId", "graphExecId"},
         {}};
  for (const GraphLaunchRecord& g : f_.trace.graph_launches) {
    std::vector<Value> row = Gpu(g, IdOrNull(g.stream));
    // CUPTI names no device or context (INT_MAX) for a graph that starts with a host node.
    if (!g.device.valid()) row[2] = Value(int64_t{INT32_MAX});
    if (!g.context.valid()) row[3] = Value(int64_t{INT32_MAX});
    row.push_back(Value(g.graph_id));
    row.push_back(Value(g.graph_id + 1000));
    r.rows.push_back(std::move(row));
  }
  return r;
}

Rows Writer::ApiCalls() const {
  Rows r{"CUPTI_ACTIVITY_KIND_RUNTIME",
         {"start", "end", "eventClass", "globalTid", "correlationId", "nameId", "returnValue"},
         {}};
  for (const ApiCallRecord& a : f_.trace.api_calls) {
    r.rows.push_back({a.start_ns, a.end_ns, 0, a.thread.valid() ? Value(GlobalId(a.thread.value())) : Value(),
                      IdOrNull(a.correlation), StringOrNull(a.name),
                      int64_t{static_cast<uint32_t>(a.return_value)}});
  }
  return r;
}

Rows Writer::Nvtx() const {
  Rows r{"NVTX_EVENTS", {"start", "end", "eventType", "text", "globalTid", "textId", "domainId"}, {}};
  std::map<int32_t, int64_t> domain_ids;  // domain name's StringId -> domainId
  for (const NvtxRange& range : f_.trace.ranges) {
    if (range.domain.valid() && domain_ids.count(range.domain.value()) == 0) {
      const int64_t id = static_cast<int64_t>(domain_ids.size()) + 1;
      domain_ids[range.domain.value()] = id;
      r.rows.push_back({range.start_ns - 1, Value(), 75, f_.trace.strings.Get(range.domain),
                        GlobalId(range.thread.value()), Value(), id});
    }
  }
  for (size_t i = 0; i < f_.trace.ranges.size(); ++i) {
    const NvtxRange& range = f_.trace.ranges[i];
    const bool mark = range.start_ns == range.end_ns;
    // Texts alternate between an explicit string and a registered one in StringIds.
    const bool registered = range.text.valid() && i % 2 == 1;
    r.rows.push_back({range.start_ns, mark ? Value() : Value(range.end_ns), mark ? 34 : (i % 3 == 0 ? 60 : 59),
                      range.text.valid() && !registered ? Value(f_.trace.strings.Get(range.text)) : Value(),
                      range.thread.valid() ? Value(GlobalId(range.thread.value())) : Value(),
                      registered ? Value(StringRef(range.text)) : Value(),
                      range.domain.valid() ? Value(domain_ids.at(range.domain.value())) : Value(int64_t{0})});
  }
  return r;
}

}  // namespace

Status WriteNsysFixture(const std::string& path, const NsysFixture& fixture) {
  NIMBLE_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, Database::Open(path, OpenMode::kCreate));
  Writer writer(*db, fixture);
  NIMBLE_RETURN_IF_ERROR(writer.Write());
  return db->Close();
}

}  // namespace nimble::store::testing
