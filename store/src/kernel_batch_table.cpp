#include "kernel_batch_table.h"

#include "nimble/store/schema.h"

#include <new>
#include <string>

namespace nimble::store {
namespace {

// nimble_kernel_batch: an eponymous, read-only virtual table over the KernelBatch given to the
// module, one row per record with the kernel table's columns. SQLite reads each value straight from
// the record, which costs far less than binding 12 parameters per row (bench/results/store_writer.md).
struct KernelBatchTable {
  sqlite3_vtab base;  // first, so that SQLite's pointer converts back
  const KernelBatch* batch;
};

struct KernelBatchCursor {
  sqlite3_vtab_cursor base;  // first, as above
  const KernelBatch* batch;
  size_t row;
};

std::string KernelBatchDeclaration() {
  std::string sql = "CREATE TABLE x(";
  for (const char* column : kKernelColumns) sql += std::string(column) + ", ";
  sql.resize(sql.size() - 2);
  return sql + ")";
}

int KernelBatchConnect(sqlite3* db, void* aux, int, const char* const*, sqlite3_vtab** out, char**) {
  const int rc = sqlite3_declare_vtab(db, KernelBatchDeclaration().c_str());
  if (rc != SQLITE_OK) return rc;
  sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);  // not from triggers or views of a file
  auto* table = new (std::nothrow) KernelBatchTable{};  // no exception may cross SQLite's C frames
  if (table == nullptr) return SQLITE_NOMEM;
  table->batch = static_cast<const KernelBatch*>(aux);
  *out = &table->base;
  return SQLITE_OK;
}

int KernelBatchDisconnect(sqlite3_vtab* table) {
  delete reinterpret_cast<KernelBatchTable*>(table);
  return SQLITE_OK;
}

int KernelBatchBestIndex(sqlite3_vtab*, sqlite3_index_info* info) {
  info->estimatedRows = 4096;  // a full scan is the only plan
  return SQLITE_OK;
}

int KernelBatchOpen(sqlite3_vtab* table, sqlite3_vtab_cursor** out) {
  auto* cursor = new (std::nothrow) KernelBatchCursor{};
  if (cursor == nullptr) return SQLITE_NOMEM;
  cursor->batch = reinterpret_cast<KernelBatchTable*>(table)->batch;
  *out = &cursor->base;
  return SQLITE_OK;
}

int KernelBatchClose(sqlite3_vtab_cursor* cursor) {
  delete reinterpret_cast<KernelBatchCursor*>(cursor);
  return SQLITE_OK;
}

int KernelBatchFilter(sqlite3_vtab_cursor* cursor, int, const char*, int, sqlite3_value**) {
  reinterpret_cast<KernelBatchCursor*>(cursor)->row = 0;
  return SQLITE_OK;
}

int KernelBatchNext(sqlite3_vtab_cursor* cursor) {
  ++reinterpret_cast<KernelBatchCursor*>(cursor)->row;
  return SQLITE_OK;
}

int KernelBatchEof(sqlite3_vtab_cursor* cursor) {
  const auto* c = reinterpret_cast<KernelBatchCursor*>(cursor);
  return c->row >= c->batch->count ? 1 : 0;
}

template <typename Id>
void ResultId(sqlite3_context* ctx, Id id) {
  if (id.valid()) sqlite3_result_int64(ctx, id.value());
  else sqlite3_result_null(ctx);
}

void ResultString(sqlite3_context* ctx, StringId id, const StringCache& strings) {
  if (id.valid()) sqlite3_result_int64(ctx, strings.DbId(id));
  else sqlite3_result_null(ctx);
}

// Column `col` of kKernelColumns for the cursor's record.
int KernelBatchColumn(sqlite3_vtab_cursor* cursor, sqlite3_context* ctx, int col) {
  const auto* c = reinterpret_cast<KernelBatchCursor*>(cursor);
  const KernelBatch& b = *c->batch;
  const KernelRecord& k = b.records[c->row];
  int64_t value = 0;
  switch (col) {
    case 0:
      if (!b.explicit_ids && c->row != 0) {
        sqlite3_result_null(ctx);
        return SQLITE_OK;
      }
      value = KernelId(b.run, b.first_kernel_index + static_cast<int64_t>(c->row));
      break;
    case 1: value = k.start_ns; break;
    case 2: value = k.end_ns; break;
    case 3: ResultId(ctx, k.device); return SQLITE_OK;
    case 4: ResultId(ctx, k.context); return SQLITE_OK;
    case 5: ResultId(ctx, k.stream); return SQLITE_OK;
    case 6: ResultId(ctx, k.correlation); return SQLITE_OK;
    case 7: ResultString(ctx, k.name, *b.strings); return SQLITE_OK;
    case 8: ResultString(ctx, k.short_name, *b.strings); return SQLITE_OK;
    case 9: value = b.launch_config_ids[c->row]; break;
    case 10: value = k.graph_node_id; break;
    case 11: value = k.graph_id; break;
    default: return SQLITE_ERROR;
  }
  sqlite3_result_int64(ctx, value);
  return SQLITE_OK;
}

int KernelBatchRowid(sqlite3_vtab_cursor* cursor, sqlite3_int64* rowid) {
  *rowid = static_cast<sqlite3_int64>(reinterpret_cast<KernelBatchCursor*>(cursor)->row);
  return SQLITE_OK;
}

sqlite3_module MakeKernelBatchModule() {
  sqlite3_module m{};
  m.xCreate = nullptr;  // eponymous-only: it exists on the connection, never in a file's schema
  m.xConnect = KernelBatchConnect;
  m.xBestIndex = KernelBatchBestIndex;
  m.xDisconnect = KernelBatchDisconnect;
  m.xOpen = KernelBatchOpen;
  m.xClose = KernelBatchClose;
  m.xFilter = KernelBatchFilter;
  m.xNext = KernelBatchNext;
  m.xEof = KernelBatchEof;
  m.xColumn = KernelBatchColumn;
  m.xRowid = KernelBatchRowid;
  return m;
}

const sqlite3_module kKernelBatchModule = MakeKernelBatchModule();

}  // namespace

StatusOr<KernelBatch*> RegisterKernelBatch(Database& db) {
  auto* batch = new (std::nothrow) KernelBatch();
  if (batch == nullptr) return db.Error(SQLITE_NOMEM, "registering the virtual table nimble_kernel_batch");
  // SQLite calls the destructor when the connection closes, and also when registering fails.
  const int rc = sqlite3_create_module_v2(db.handle(), "nimble_kernel_batch", &kKernelBatchModule, batch,
                                          [](void* p) { delete static_cast<KernelBatch*>(p); });
  if (rc != SQLITE_OK) return db.Error(rc, "registering the virtual table nimble_kernel_batch");
  return batch;
}

}  // namespace nimble::store
