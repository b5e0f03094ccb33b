#include "nimble/store/timeline_reader.h"

#include <algorithm>
#include <vector>

#include "nimble/store/schema.h"
#include "open_database.h"
#include "results_writer.h"

namespace nimble::store {
namespace {

// Above this many ids per stored string the file's ids are too sparse for a dense translation table.
constexpr int64_t kMaxIdsPerString = 16;

// Rows of the other tables in write order: `+runId` keeps SQLite from reading them through the
// (runId, start) index and then sorting millions of rows by rowid; a rowid scan is already in order.
// Columns: start, end, device or thread, stream, correlation, name, bytes, detail, with NULL ids as -1
// (the invalid id) so that each is read with one call.
const char* TableQuery(TimelineTable table) {
  switch (table) {
    case TimelineTable::kKernels:  // see KernelQuery
      return "";
    case TimelineTable::kMemcpys:
      return "SELECT start, end, coalesce(deviceId, -1), coalesce(streamId, -1), coalesce(correlationId, -1), -1, "
             "bytes, copyKind FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE +runId = ?1 ORDER BY rowid";
    case TimelineTable::kMemsets:
      return "SELECT start, end, coalesce(deviceId, -1), coalesce(streamId, -1), coalesce(correlationId, -1), -1, "
             "bytes, memKind FROM CUPTI_ACTIVITY_KIND_MEMSET WHERE +runId = ?1 ORDER BY rowid";
    case TimelineTable::kSyncs:
      return "SELECT start, end, coalesce(deviceId, -1), coalesce(streamId, -1), coalesce(correlationId, -1), -1, "
             "0, syncType FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION WHERE +runId = ?1 ORDER BY rowid";
    case TimelineTable::kApiCalls:
      return "SELECT start, end, coalesce(threadId, -1), -1, coalesce(correlationId, -1), coalesce(nameId, -1), "
             "0, apiKind FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE +runId = ?1 ORDER BY rowid";
    case TimelineTable::kRanges:
      return "SELECT start, end, coalesce(threadId, -1), -1, -1, coalesce(textId, -1), 0, 0 "
             "FROM NVTX_EVENTS WHERE +runId = ?1 ORDER BY rowid";
    case TimelineTable::kGraphLaunches:
      return "SELECT start, end, coalesce(deviceId, -1), coalesce(streamId, -1), coalesce(correlationId, -1), -1, "
             "graphId, 0 FROM CUPTI_ACTIVITY_KIND_GRAPH_TRACE WHERE +runId = ?1 ORDER BY rowid";
  }
  return "";
}

// Kernels are most of a run: the query returns only what a timeline needs, with NULL ids as -1 (the
// invalid id) so that each column is one call, which makes reading 10 million rows measurably faster.
const char* KernelQuery(bool with_correlation) {
  return with_correlation
             ? "SELECT id & 4294967295, start, end, coalesce(deviceId, -1), coalesce(streamId, -1), "
               "coalesce(shortName, -1), coalesce(correlationId, -1) FROM kernels "
               "WHERE id >= (?1 << 32) + ?2 AND id < (?1 << 32) + ?3 ORDER BY id"
             : "SELECT id & 4294967295, start, end, coalesce(deviceId, -1), coalesce(streamId, -1), "
               "coalesce(shortName, -1) FROM kernels "
               "WHERE id >= (?1 << 32) + ?2 AND id < (?1 << 32) + ?3 ORDER BY id";
}

const char* TableName(TimelineTable table) {
  switch (table) {
    case TimelineTable::kKernels: return "CUPTI_ACTIVITY_KIND_KERNEL";
    case TimelineTable::kMemcpys: return "CUPTI_ACTIVITY_KIND_MEMCPY";
    case TimelineTable::kMemsets: return "CUPTI_ACTIVITY_KIND_MEMSET";
    case TimelineTable::kSyncs: return "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
    case TimelineTable::kApiCalls: return "CUPTI_ACTIVITY_KIND_RUNTIME";
    case TimelineTable::kRanges: return "NVTX_EVENTS";
    case TimelineTable::kGraphLaunches: return "CUPTI_ACTIVITY_KIND_GRAPH_TRACE";
  }
  return "";
}

bool IsHostTable(TimelineTable table) { return table == TimelineTable::kApiCalls || table == TimelineTable::kRanges; }

}  // namespace

class TimelineReader::Impl {
 public:
  explicit Impl(std::unique_ptr<Database> db) : db_(std::move(db)) {}

  Database& db() const { return *db_; }
  const StringTable& strings() const { return strings_; }

  // Interns every stored string in id order and builds the file-id -> StringId translation.
  Status LoadStrings() {
    NIMBLE_ASSIGN_OR_RETURN(Statement q, db_->Prepare("SELECT id, value FROM StringIds ORDER BY id"));
    std::vector<std::pair<int64_t, StringId>> pairs;
    int64_t max_id = -1;
    while (true) {
      NIMBLE_ASSIGN_OR_RETURN(bool has_row, q.Step());
      if (!has_row) break;
      const int64_t db_id = q.ColumnInt(0);
      if (db_id < 0) return DataLoss(db_->path() + ": negative string id " + std::to_string(db_id));
      pairs.emplace_back(db_id, strings_.Intern(q.ColumnText(1)));
      max_id = std::max(max_id, db_id);
    }
    if (max_id >= kMaxIdsPerString * static_cast<int64_t>(pairs.size()) + 4096) {
      return DataLoss(db_->path() + ": StringIds ids are too sparse (largest " + std::to_string(max_id) + ")");
    }
    dense_.assign(static_cast<size_t>(max_id + 1), StringId());
    for (const auto& [db_id, id] : pairs) dense_[static_cast<size_t>(db_id)] = id;
    return OkStatus();
  }

  // The StringId of the file id in column `col`; invalid for NULL, DataLoss for an unknown id.
  StatusOr<StringId> StringAt(const Statement& row, int col) const {
    if (row.ColumnIsNull(col)) return StringId();
    return StringOf(row.ColumnInt(col));
  }

  // The StringId of a file id (-1: none).
  StatusOr<StringId> StringOf(int64_t db_id) const {
    if (db_id == -1) return StringId();
    if (db_id < 0 || db_id >= static_cast<int64_t>(dense_.size()) || !dense_[static_cast<size_t>(db_id)].valid()) {
      return DataLoss(db_->path() + ": string id " + std::to_string(db_id) + " is missing from StringIds");
    }
    return dense_[static_cast<size_t>(db_id)];
  }

  Status StreamKernels(Statement& q, bool with_correlation, const TimelineSink& sink, int64_t batch_rows) const {
    std::vector<TimelineRow> batch;
    batch.reserve(static_cast<size_t>(batch_rows));
    while (true) {
      NIMBLE_ASSIGN_OR_RETURN(bool has_row, q.Step());
      if (!has_row) break;
      TimelineRow& r = batch.emplace_back();
      r.index = q.ColumnInt(0);
      r.start_ns = q.ColumnInt(1);
      r.end_ns = q.ColumnInt(2);
      r.device = DeviceId(static_cast<int32_t>(q.ColumnInt(3)));
      r.stream = StreamId(q.ColumnInt(4));
      NIMBLE_ASSIGN_OR_RETURN(r.name, StringOf(q.ColumnInt(5)));
      if (with_correlation) r.correlation = CorrelationId(q.ColumnInt(6));
      if (static_cast<int64_t>(batch.size()) == batch_rows) {
        NIMBLE_RETURN_IF_ERROR(sink(batch));
        batch.clear();
      }
    }
    if (!batch.empty()) NIMBLE_RETURN_IF_ERROR(sink(batch));
    return OkStatus();
  }

  Status Stream(Statement& q, TimelineTable table, const TimelineSink& sink, int64_t batch_rows) const {
    std::vector<TimelineRow> batch;
    batch.reserve(static_cast<size_t>(batch_rows));
    const bool host = IsHostTable(table);
    int64_t position = 0;
    while (true) {
      NIMBLE_ASSIGN_OR_RETURN(bool has_row, q.Step());
      if (!has_row) break;
      TimelineRow& r = batch.emplace_back();
      r.index = position++;
      r.start_ns = q.ColumnInt(0);
      r.end_ns = q.ColumnInt(1);
      if (host) r.thread = ThreadId(q.ColumnInt(2));
      else r.device = DeviceId(static_cast<int32_t>(q.ColumnInt(2)));
      r.stream = StreamId(q.ColumnInt(3));
      r.correlation = CorrelationId(q.ColumnInt(4));
      NIMBLE_ASSIGN_OR_RETURN(r.name, StringOf(q.ColumnInt(5)));
      r.bytes = q.ColumnInt(6);
      r.detail = static_cast<int32_t>(q.ColumnInt(7));
      if (static_cast<int64_t>(batch.size()) == batch_rows) {
        NIMBLE_RETURN_IF_ERROR(sink(batch));
        batch.clear();
      }
    }
    if (!batch.empty()) NIMBLE_RETURN_IF_ERROR(sink(batch));
    return OkStatus();
  }

 private:
  std::unique_ptr<Database> db_;
  StringTable strings_;
  std::vector<StringId> dense_;  // indexed by the file's string id
};

TimelineReader::TimelineReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TimelineReader::~TimelineReader() = default;

StatusOr<std::unique_ptr<TimelineReader>> TimelineReader::Open(const std::string& path) {
  NIMBLE_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, OpenForReading(path));
  NIMBLE_RETURN_IF_ERROR(ReadSchemaVersion(*db).status());
  auto impl = std::make_unique<Impl>(std::move(db));
  NIMBLE_RETURN_IF_ERROR(impl->LoadStrings());
  return std::unique_ptr<TimelineReader>(new TimelineReader(std::move(impl)));
}

const std::string& TimelineReader::path() const { return impl_->db().path(); }

const StringTable& TimelineReader::strings() const { return impl_->strings(); }

StatusOr<int64_t> TimelineReader::KernelIndexEnd(RunId run) const {
  NIMBLE_RETURN_IF_ERROR(CheckRunExists(impl_->db(), run));
  return NextKernelIndex(impl_->db(), run);
}

StatusOr<int64_t> TimelineReader::CountRows(RunId run, TimelineTable table) const {
  NIMBLE_RETURN_IF_ERROR(CheckRunExists(impl_->db(), run));
  if (table == TimelineTable::kKernels) return NextKernelIndex(impl_->db(), run);  // indexes are 0..n-1
  NIMBLE_ASSIGN_OR_RETURN(Statement q, impl_->db().Prepare(std::string("SELECT count(*) FROM ") +
                                                          TableName(table) + " WHERE runId = ?"));
  q.BindInt(1, run.value());
  NIMBLE_ASSIGN_OR_RETURN(bool has_row, q.Step());
  const int64_t rows = has_row ? q.ColumnInt(0) : 0;
  q.Reset();
  return rows;
}

Status TimelineReader::ReadKernels(RunId run, int64_t first_index, int64_t end_index, bool with_correlation,
                                   const TimelineSink& sink, int64_t batch_rows) const {
  NIMBLE_RETURN_IF_ERROR(CheckRunExists(impl_->db(), run));
  NIMBLE_ASSIGN_OR_RETURN(Statement q, impl_->db().Prepare(KernelQuery(with_correlation)));
  // Indexes outside [0, kMaxKernelsPerRun] would reach into the key range of another run.
  q.BindInt(1, run.value());
  q.BindInt(2, std::clamp<int64_t>(first_index, 0, kMaxKernelsPerRun));
  q.BindInt(3, std::clamp<int64_t>(end_index, 0, kMaxKernelsPerRun));
  return impl_->StreamKernels(q, with_correlation, sink, std::max<int64_t>(batch_rows, 1));
}

Status TimelineReader::ReadTable(RunId run, TimelineTable table, const TimelineSink& sink, int64_t batch_rows) const {
  if (table == TimelineTable::kKernels) return ReadKernels(run, 0, INT64_MAX, true, sink, batch_rows);
  NIMBLE_RETURN_IF_ERROR(CheckRunExists(impl_->db(), run));
  NIMBLE_ASSIGN_OR_RETURN(Statement q, impl_->db().Prepare(TableQuery(table)));
  q.BindInt(1, run.value());
  return impl_->Stream(q, table, sink, std::max<int64_t>(batch_rows, 1));
}

StatusOr<KernelRecord> TimelineReader::LoadKernel(RunId run, KernelIndex kernel) const {
  NIMBLE_ASSIGN_OR_RETURN(Statement q, impl_->db().Prepare(
      "SELECT start, end, deviceId, contextId, streamId, correlationId, demangledName, shortName, gridX, gridY, "
      "gridZ, blockX, blockY, blockZ, registersPerThread, staticSharedMemory, dynamicSharedMemory, graphNodeId, "
      "graphId FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE id = ? AND runId = ?"));
  q.BindInt(1, KernelId(run.value(), kernel.value()));
  q.BindInt(2, run.value());
  NIMBLE_ASSIGN_OR_RETURN(bool found, q.Step());
  if (!found) {
    return NotFound(path() + ": run " + std::to_string(run.value()) + " has no kernel " +
                    std::to_string(kernel.value()));
  }
  KernelRecord k;
  k.start_ns = q.ColumnInt(0);
  k.end_ns = q.ColumnInt(1);
  k.device = q.ColumnId<DeviceId>(2);
  k.context = q.ColumnId<ContextId>(3);
  k.stream = q.ColumnId<StreamId>(4);
  k.correlation = q.ColumnId<CorrelationId>(5);
  NIMBLE_ASSIGN_OR_RETURN(k.name, impl_->StringAt(q, 6));
  NIMBLE_ASSIGN_OR_RETURN(k.short_name, impl_->StringAt(q, 7));
  const auto i32 = [&](int col) { return static_cast<int32_t>(q.ColumnInt(col)); };
  k.grid = {i32(8), i32(9), i32(10)};
  k.block = {i32(11), i32(12), i32(13)};
  k.registers_per_thread = i32(14);
  k.static_shared_bytes = i32(15);
  k.dynamic_shared_bytes = i32(16);
  k.graph_node_id = q.ColumnInt(17);
  k.graph_id = q.ColumnInt(18);
  q.Reset();
  return k;
}

}  // namespace nimble::store
