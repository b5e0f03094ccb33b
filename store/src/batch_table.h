// An eponymous, read-only virtual table over a batch of buffered records, so that the writer inserts
// a whole batch with one INSERT ... SELECT instead of binding every value of every row
// (bench/results/store_writer.md). It exists only on the writer's connection, never in a file.
// Single-threaded, like the connection it is registered on.
//
// A Batch type provides `size_t count` (rows shown now; 0 outside an insert) and
// `void Column(size_t row, int col, sqlite3_context* ctx) const`, which sets the value of column
// `col` of row `row` with sqlite3_result_*.
#pragma once

#include <sqlite3.h>

#include <initializer_list>
#include <new>
#include <string>

#include "nimble/core/ids.h"
#include "sqlite_db.h"
#include "string_cache.h"

namespace nimble::store {

// Column values for Batch::Column: an id or string that may be absent is NULL then.
template <typename Id>
void ResultId(sqlite3_context* ctx, Id id) {
  if (id.valid()) sqlite3_result_int64(ctx, id.value());
  else sqlite3_result_null(ctx);
}

inline void ResultString(sqlite3_context* ctx, StringId id, const StringCache& strings) {
  if (id.valid()) sqlite3_result_int64(ctx, strings.DbId(id));
  else sqlite3_result_null(ctx);
}

namespace batch_table_detail {

template <typename Batch>
struct Table {
  sqlite3_vtab base;  // first, so that SQLite's pointer converts back
  const Batch* batch;
};

template <typename Batch>
struct Cursor {
  sqlite3_vtab_cursor base;  // first, as above
  const Batch* batch;
  size_t row;
};

// The module's state: the batch and the columns it declares.
template <typename Batch>
struct Aux {
  Batch batch;
  std::string declaration;  // "CREATE TABLE x(a, b, ...)"
};

template <typename Batch>
int Connect(sqlite3* db, void* aux, int, const char* const*, sqlite3_vtab** out, char**) {
  auto* state = static_cast<Aux<Batch>*>(aux);
  const int rc = sqlite3_declare_vtab(db, state->declaration.c_str());
  if (rc != SQLITE_OK) return rc;
  sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);  // not from triggers or views of a file
  auto* table = new (std::nothrow) Table<Batch>{};  // no exception may cross SQLite's C frames
  if (table == nullptr) return SQLITE_NOMEM;
  table->batch = &state->batch;
  *out = &table->base;
  return SQLITE_OK;
}

template <typename Batch>
int Disconnect(sqlite3_vtab* table) {
  delete reinterpret_cast<Table<Batch>*>(table);
  return SQLITE_OK;
}

inline int BestIndex(sqlite3_vtab*, sqlite3_index_info* info) {
  info->estimatedRows = 4096;  // a full scan is the only plan
  return SQLITE_OK;
}

template <typename Batch>
int Open(sqlite3_vtab* table, sqlite3_vtab_cursor** out) {
  auto* cursor = new (std::nothrow) Cursor<Batch>{};
  if (cursor == nullptr) return SQLITE_NOMEM;
  cursor->batch = reinterpret_cast<Table<Batch>*>(table)->batch;
  *out = &cursor->base;
  return SQLITE_OK;
}

template <typename Batch>
int Close(sqlite3_vtab_cursor* cursor) {
  delete reinterpret_cast<Cursor<Batch>*>(cursor);
  return SQLITE_OK;
}

template <typename Batch>
int Filter(sqlite3_vtab_cursor* cursor, int, const char*, int, sqlite3_value**) {
  reinterpret_cast<Cursor<Batch>*>(cursor)->row = 0;
  return SQLITE_OK;
}

template <typename Batch>
int Next(sqlite3_vtab_cursor* cursor) {
  ++reinterpret_cast<Cursor<Batch>*>(cursor)->row;
  return SQLITE_OK;
}

template <typename Batch>
int Eof(sqlite3_vtab_cursor* cursor) {
  const auto* c = reinterpret_cast<Cursor<Batch>*>(cursor);
  return c->row >= c->batch->count ? 1 : 0;
}

template <typename Batch>
int Column(sqlite3_vtab_cursor* cursor, sqlite3_context* ctx, int col) {
  const auto* c = reinterpret_cast<Cursor<Batch>*>(cursor);
  c->batch->Column(c->row, col, ctx);
  return SQLITE_OK;
}

template <typename Batch>
int Rowid(sqlite3_vtab_cursor* cursor, sqlite3_int64* rowid) {
  *rowid = static_cast<sqlite3_int64>(reinterpret_cast<Cursor<Batch>*>(cursor)->row);
  return SQLITE_OK;
}

template <typename Batch>
constexpr sqlite3_module MakeModule() {
  sqlite3_module m{};
  m.xCreate = nullptr;  // eponymous-only: it exists on the connection, never in a file's schema
  m.xConnect = Connect<Batch>;
  m.xBestIndex = BestIndex;
  m.xDisconnect = Disconnect<Batch>;
  m.xOpen = Open<Batch>;
  m.xClose = Close<Batch>;
  m.xFilter = Filter<Batch>;
  m.xNext = Next<Batch>;
  m.xEof = Eof<Batch>;
  m.xColumn = Column<Batch>;
  m.xRowid = Rowid<Batch>;
  return m;
}

template <typename Batch>
inline const sqlite3_module kModule = MakeModule<Batch>();

}  // namespace batch_table_detail

// Registers the virtual table `name` with `columns` on `db` and returns its batch, which the
// connection owns (freed when it closes).
template <typename Batch>
StatusOr<Batch*> RegisterBatchTable(Database& db, const char* name, std::initializer_list<const char*> columns) {
  using Aux = batch_table_detail::Aux<Batch>;
  auto* aux = new (std::nothrow) Aux();
  const std::string what = std::string("registering the virtual table ") + name;
  if (aux == nullptr) return db.Error(SQLITE_NOMEM, what.c_str());
  aux->declaration = "CREATE TABLE x(";
  for (const char* column : columns) aux->declaration += std::string(column) + ", ";
  aux->declaration.resize(aux->declaration.size() - 2);
  aux->declaration += ")";
  // SQLite calls the destructor when the connection closes, and also when registering fails.
  const int rc = sqlite3_create_module_v2(db.handle(), name, &batch_table_detail::kModule<Batch>, aux,
                                          [](void* p) { delete static_cast<Aux*>(p); });
  if (rc != SQLITE_OK) return db.Error(rc, what.c_str());
  return &aux->batch;
}

}  // namespace nimble::store
