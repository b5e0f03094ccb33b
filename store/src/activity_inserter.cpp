#include "activity_inserter.h"

#include "batch_tables.h"
#include "nimble/store/schema.h"

#include <algorithm>
#include <initializer_list>
#include <new>
#include <string>

namespace nimble::store {
namespace {

constexpr size_t kRows = TableInsert::kRowsPerStatement;

StatusOr<TableInsert> PrepareInsert(Database& db, const char* table, std::initializer_list<const char*> columns) {
  std::string head = std::string("INSERT INTO ") + table + " (";
  std::string row = "(";
  for (const char* column : columns) {
    head += column;
    head += ", ";
    row += "?, ";
  }
  head.resize(head.size() - 2);
  row.resize(row.size() - 2);
  head += ") VALUES ";
  row += ")";
  std::string many = head;
  for (size_t r = 0; r < kRows; ++r) many += (r == 0 ? "" : ", ") + row;
  TableInsert insert;
  insert.table = table;
  insert.columns = static_cast<int>(columns.size());
  NIMBLE_ASSIGN_OR_RETURN(insert.one_row, db.Prepare(head + row));
  NIMBLE_ASSIGN_OR_RETURN(insert.many_rows, db.Prepare(many));
  return insert;
}

// INSERT INTO table (columns) SELECT columns FROM batch_table: a whole batch in one statement.
StatusOr<Statement> PrepareInsertFromBatch(Database& db, const char* table, const char* batch_table,
                                           std::initializer_list<const char*> columns) {
  std::string list;
  for (const char* column : columns) list += std::string(list.empty() ? "" : ", ") + column;
  return db.Prepare(std::string("INSERT INTO ") + table + " (" + list + ") SELECT " + list + " FROM " + batch_table);
}

// Says which record of the batch failed (the SQLite message says which constraint).
template <typename Record>
Status RecordError(const Status& status, const TableInsert& insert, size_t index, const Record& record) {
  std::string where = " (" + std::string(insert.table) + " record " + std::to_string(index) + " of the batch";
  if constexpr (requires { record.start_ns; }) {
    where += ", start " + std::to_string(record.start_ns) + " ns, end " + std::to_string(record.end_ns) + " ns";
  }
  return {status.code(), status.message() + where + ")"};
}

// Inserts records[0..n) in statements of kRows rows, then one by one. bind(stmt, first_param, i)
// binds record i's columns from parameter first_param on. A failed multi-row statement leaves no
// row behind, so its rows are retried one by one to name the record at fault.
template <typename Record, typename Bind>
Status InsertRows(TableInsert& insert, const std::vector<Record>& records, Bind bind) {
  size_t i = 0;
  for (; i + kRows <= records.size(); i += kRows) {
    for (size_t r = 0; r < kRows; ++r) bind(insert.many_rows, static_cast<int>(r) * insert.columns + 1, i + r);
    if (Status status = insert.many_rows.Run(); !status.ok()) {
      for (size_t r = i; r < i + kRows; ++r) {
        bind(insert.one_row, 1, r);
        if (Status one = insert.one_row.Run(); !one.ok()) return RecordError(one, insert, r, records[r]);
      }
      return RecordError(status, insert, i, records[i]);
    }
  }
  for (; i < records.size(); ++i) {
    bind(insert.one_row, 1, i);
    if (Status status = insert.one_row.Run(); !status.ok()) return RecordError(status, insert, i, records[i]);
  }
  return OkStatus();
}

// Binds start, end, deviceId, contextId, streamId, correlationId at parameters p .. p + 5.
template <typename Record>
void BindTimesAndIds(Statement& s, int p, const Record& r) {
  s.BindInt(p, r.start_ns);
  s.BindInt(p + 1, r.end_ns);
  s.BindId(p + 2, r.device);
  s.BindId(p + 3, r.context);
  s.BindId(p + 4, r.stream);
  s.BindId(p + 5, r.correlation);
}

// Binds the columns shared by GPU activity tables other than the kernels': runId, then
// BindTimesAndIds' at parameters p .. p + 6.
template <typename Record>
void BindGpuActivity(Statement& s, int p, RunId run, const Record& r) {
  s.BindInt(p, run.value());
  BindTimesAndIds(s, p + 1, r);
}

template <typename E>
int64_t EnumValue(E e) { return static_cast<int64_t>(e); }

}  // namespace

StatusOr<ActivityInserter> ActivityInserter::Prepare(Database& db) {
  ActivityInserter ins;
  NIMBLE_ASSIGN_OR_RETURN(ins.kernel_, PrepareInsert(db, "kernels", kKernelColumns));
  NIMBLE_ASSIGN_OR_RETURN(ins.kernel_batch_, RegisterKernelBatch(db));
  NIMBLE_ASSIGN_OR_RETURN(ins.kernels_from_batch_,
                          PrepareInsertFromBatch(db, "kernels", "nimble_kernel_batch", kKernelColumns));
  NIMBLE_ASSIGN_OR_RETURN(ins.max_kernel_id_, db.Prepare("SELECT coalesce(max(id), -1) FROM kernels"));
  NIMBLE_ASSIGN_OR_RETURN(ins.time_block_, db.Prepare(
      "INSERT INTO kernel_time_blocks (runId, firstKernelIndex, lastKernelIndex, minStart, maxEnd) "
      "VALUES (?, ?, ?, ?, ?) ON CONFLICT (runId, firstKernelIndex) DO UPDATE SET "
      "lastKernelIndex = max(lastKernelIndex, excluded.lastKernelIndex), "
      "minStart = min(minStart, excluded.minStart), maxEnd = max(maxEnd, excluded.maxEnd)"));
  NIMBLE_ASSIGN_OR_RETURN(ins.memcpy_, PrepareInsert(db, "CUPTI_ACTIVITY_KIND_MEMCPY", {
      "runId", "start", "end", "deviceId", "contextId", "streamId", "correlationId", "bytes", "copyKind",
      "srcKind", "dstKind", "graphNodeId"}));
  NIMBLE_ASSIGN_OR_RETURN(ins.memset_, PrepareInsert(db, "CUPTI_ACTIVITY_KIND_MEMSET", {
      "runId", "start", "end", "deviceId", "contextId", "streamId", "correlationId", "value", "bytes", "memKind",
      "graphNodeId"}));
  NIMBLE_ASSIGN_OR_RETURN(ins.sync_, PrepareInsert(db, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", {
      "runId", "start", "end", "deviceId", "contextId", "streamId", "correlationId", "syncType", "eventId"}));
  NIMBLE_ASSIGN_OR_RETURN(ins.graph_launch_, PrepareInsert(db, "CUPTI_ACTIVITY_KIND_GRAPH_TRACE", {
      "runId", "start", "end", "deviceId", "contextId", "streamId", "correlationId", "graphId"}));
  NIMBLE_ASSIGN_OR_RETURN(ins.api_call_, PrepareInsert(db, "CUPTI_ACTIVITY_KIND_RUNTIME", kApiCallColumns));
  NIMBLE_ASSIGN_OR_RETURN(ins.api_batch_, RegisterApiCallBatch(db));
  NIMBLE_ASSIGN_OR_RETURN(ins.api_calls_from_batch_, PrepareInsertFromBatch(db, "CUPTI_ACTIVITY_KIND_RUNTIME",
                                                                            "nimble_api_batch", kApiCallColumns));
  NIMBLE_ASSIGN_OR_RETURN(ins.range_, PrepareInsert(db, "NVTX_EVENTS", {
      "runId", "start", "end", "threadId", "textId", "domainNameId"}));
  NIMBLE_ASSIGN_OR_RETURN(ins.external_correlation_, PrepareInsert(db, "CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION", {
      "runId", "correlationId", "externalId", "externalKind"}));
  NIMBLE_ASSIGN_OR_RETURN(ins.overhead_, PrepareInsert(db, "CUPTI_ACTIVITY_KIND_OVERHEAD", {
      "runId", "start", "end", "threadId", "nameId"}));
  return ins;
}

Status ActivityInserter::Insert(const ActivityBuffer& buffer, RunId run, int64_t first_kernel_index,
                                const StringCache& strings, LaunchConfigCache& configs) {
  NIMBLE_RETURN_IF_ERROR(InsertGpuActivity(buffer, run, first_kernel_index, strings, configs));
  return InsertHostActivity(buffer, run, strings);
}

Status ActivityInserter::InsertKernels(const std::vector<KernelRecord>& kernels, RunId run,
                                       int64_t first_kernel_index, const StringCache& strings,
                                       LaunchConfigCache& configs) {
  if (kernels.empty()) return OkStatus();
  NIMBLE_RETURN_IF_ERROR(configs.Resolve(kernels, launch_config_ids_));
  // Ids assigned by SQLite (a fifth less CPU per row for a new file, bench/results/store_writer.md)
  // are right only while the table holds no larger id than this batch's first: the usual case, the
  // newest run being written. Otherwise (kernels added to an older run) every row gets its id.
  NIMBLE_ASSIGN_OR_RETURN(bool has_row, max_kernel_id_.Step());
  const int64_t max_id = has_row ? max_kernel_id_.ColumnInt(0) : -1;
  max_kernel_id_.Reset();
  const bool explicit_ids = max_id >= KernelId(run.value(), first_kernel_index);
  *kernel_batch_ = {kernels.data(), kernels.size(), run.value(), first_kernel_index, &strings,
                    launch_config_ids_.data(), explicit_ids};
  Status status = kernels_from_batch_.Run();
  *kernel_batch_ = {};
  if (status.ok()) return UpdateTimeBlocks(kernels, run, first_kernel_index);
  // The failed statement left no row behind: insert row by row, which names the record at fault.
  Status by_row = InsertRows(kernel_, kernels, [&](Statement& s, int p, size_t i) {
    const KernelRecord& k = kernels[i];
    const int64_t index = first_kernel_index + static_cast<int64_t>(i);
    s.BindInt(p, KernelId(run.value(), index));
    BindTimesAndIds(s, p + 1, k);
    strings.Bind(s, p + 7, k.name);
    strings.Bind(s, p + 8, k.short_name);
    s.BindInt(p + 9, launch_config_ids_[i]);
    s.BindInt(p + 10, k.graph_node_id);
    s.BindInt(p + 11, k.graph_id);
  });
  return by_row.ok() ? status : by_row;
}

// One upsert per block the batch touches: a batch that starts or ends inside a block widens the row
// that earlier or later batches write for the same block.
Status ActivityInserter::UpdateTimeBlocks(const std::vector<KernelRecord>& kernels, RunId run,
                                          int64_t first_kernel_index) {
  size_t i = 0;
  while (i < kernels.size()) {
    const int64_t index = first_kernel_index + static_cast<int64_t>(i);
    const int64_t block_first = index / kKernelsPerTimeBlock * kKernelsPerTimeBlock;
    const size_t end = std::min(kernels.size(), i + static_cast<size_t>(block_first + kKernelsPerTimeBlock - index));
    int64_t min_start = kernels[i].start_ns, max_end = kernels[i].end_ns;
    for (size_t k = i + 1; k < end; ++k) {
      min_start = std::min(min_start, kernels[k].start_ns);
      max_end = std::max(max_end, kernels[k].end_ns);
    }
    time_block_.BindInt(1, run.value());
    time_block_.BindInt(2, block_first);
    time_block_.BindInt(3, first_kernel_index + static_cast<int64_t>(end) - 1);
    time_block_.BindInt(4, min_start);
    time_block_.BindInt(5, max_end);
    if (Status status = time_block_.Run(); !status.ok()) {
      return {status.code(), status.message() + " (kernel_time_blocks, kernels " + std::to_string(index) + " to " +
                                 std::to_string(first_kernel_index + static_cast<int64_t>(end) - 1) + ")"};
    }
    i = end;
  }
  return OkStatus();
}

Status ActivityInserter::InsertGpuActivity(const ActivityBuffer& b, RunId run, int64_t first_kernel_index,
                                           const StringCache& strings, LaunchConfigCache& configs) {
  NIMBLE_RETURN_IF_ERROR(InsertKernels(b.kernels, run, first_kernel_index, strings, configs));
  NIMBLE_RETURN_IF_ERROR(InsertRows(memcpy_, b.memcpys, [&](Statement& s, int p, size_t i) {
    const MemcpyRecord& m = b.memcpys[i];
    BindGpuActivity(s, p, run, m);
    s.BindInt(p + 7, m.bytes);
    s.BindInt(p + 8, EnumValue(m.copy_kind));
    s.BindInt(p + 9, EnumValue(m.src_kind));
    s.BindInt(p + 10, EnumValue(m.dst_kind));
    s.BindInt(p + 11, m.graph_node_id);
  }));
  NIMBLE_RETURN_IF_ERROR(InsertRows(memset_, b.memsets, [&](Statement& s, int p, size_t i) {
    const MemsetRecord& m = b.memsets[i];
    BindGpuActivity(s, p, run, m);
    s.BindInt(p + 7, m.value);
    s.BindInt(p + 8, m.bytes);
    s.BindInt(p + 9, EnumValue(m.mem_kind));
    s.BindInt(p + 10, m.graph_node_id);
  }));
  NIMBLE_RETURN_IF_ERROR(InsertRows(sync_, b.syncs, [&](Statement& s, int p, size_t i) {
    BindGpuActivity(s, p, run, b.syncs[i]);
    s.BindInt(p + 7, EnumValue(b.syncs[i].kind));
    s.BindInt(p + 8, b.syncs[i].event_id);
  }));
  return InsertRows(graph_launch_, b.graph_launches, [&](Statement& s, int p, size_t i) {
    BindGpuActivity(s, p, run, b.graph_launches[i]);
    s.BindInt(p + 7, b.graph_launches[i].graph_id);
  });
}

Status ActivityInserter::InsertApiCalls(const std::vector<ApiCallRecord>& calls, RunId run,
                                        const StringCache& strings) {
  if (calls.empty()) return OkStatus();
  *api_batch_ = {calls.data(), calls.size(), run.value(), &strings};
  Status status = api_calls_from_batch_.Run();
  *api_batch_ = {};
  if (status.ok()) return status;
  // The failed statement left no row behind: insert row by row, which names the record at fault.
  Status by_row = InsertRows(api_call_, calls, [&](Statement& s, int p, size_t i) {
    const ApiCallRecord& a = calls[i];
    s.BindInt(p, run.value());
    s.BindInt(p + 1, a.start_ns);
    s.BindInt(p + 2, a.end_ns);
    s.BindInt(p + 3, EnumValue(a.kind));
    s.BindInt(p + 4, a.process);
    s.BindId(p + 5, a.thread);
    s.BindId(p + 6, a.correlation);
    strings.Bind(s, p + 7, a.name);
    s.BindInt(p + 8, a.callback_id);
    s.BindInt(p + 9, a.return_value);
  });
  return by_row.ok() ? status : by_row;
}

Status ActivityInserter::InsertHostActivity(const ActivityBuffer& b, RunId run, const StringCache& strings) {
  NIMBLE_RETURN_IF_ERROR(InsertApiCalls(b.api_calls, run, strings));
  NIMBLE_RETURN_IF_ERROR(InsertRows(range_, b.ranges, [&](Statement& s, int p, size_t i) {
    const NvtxRange& r = b.ranges[i];
    s.BindInt(p, run.value());
    s.BindInt(p + 1, r.start_ns);
    s.BindInt(p + 2, r.end_ns);
    s.BindId(p + 3, r.thread);
    strings.Bind(s, p + 4, r.text);
    strings.Bind(s, p + 5, r.domain);
  }));
  NIMBLE_RETURN_IF_ERROR(InsertRows(external_correlation_, b.external_correlations, [&](Statement& s, int p, size_t i) {
    s.BindInt(p, run.value());
    s.BindId(p + 1, b.external_correlations[i].correlation);
    s.BindInt(p + 2, b.external_correlations[i].external_id);
    s.BindInt(p + 3, b.external_correlations[i].external_kind);
  }));
  return InsertRows(overhead_, b.overheads, [&](Statement& s, int p, size_t i) {
    const OverheadRecord& o = b.overheads[i];
    s.BindInt(p, run.value());
    s.BindInt(p + 1, o.start_ns);
    s.BindInt(p + 2, o.end_ns);
    s.BindId(p + 3, o.thread);
    strings.Bind(s, p + 4, o.kind);
  });
}

}  // namespace nimble::store
