// Private RAII wrapper over the SQLite C API for the store: a connection, prepared statements and a
// transaction guard. Every error becomes a Status whose message starts with the database's path.
// One thread per Database and its Statements (the connection is opened with SQLITE_OPEN_NOMUTEX).
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "nimble/core/status.h"

namespace nimble::store {

// Builds "<path>: <what>: <sqlite message> (<code name>)" with a StatusCode that fits `rc`.
Status SqliteStatus(const std::string& path, sqlite3* db, int rc, std::string_view what);

// A prepared statement, reused across executions. Bind indexes are 1-based, columns 0-based.
class Statement {
 public:
  Statement() = default;
  Statement(sqlite3_stmt* stmt, const std::string* path);
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  void BindInt(int index, int64_t value) { sqlite3_bind_int64(stmt_, index, value); }
  void BindDouble(int index, double value) { sqlite3_bind_double(stmt_, index, value); }
  void BindNull(int index) { sqlite3_bind_null(stmt_, index); }
  // The text must outlive the next Step()/Run(): it is bound without a copy.
  void BindText(int index, std::string_view text) {
    sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
  }
  // Binds an id column: NULL for an invalid (-1) id, its value otherwise.
  template <typename Id>
  void BindId(int index, Id id) {
    if (id.valid()) BindInt(index, id.value());
    else BindNull(index);
  }

  // Executes a statement that returns no rows, then resets it for the next execution.
  Status Run();
  // Advances to the next row: true with a row, false when done (the statement is then reset).
  StatusOr<bool> Step();
  void Reset() { sqlite3_reset(stmt_); }

  int ColumnCount() const { return sqlite3_column_count(stmt_); }
  int64_t ColumnInt(int col) const { return sqlite3_column_int64(stmt_, col); }
  double ColumnDouble(int col) const { return sqlite3_column_double(stmt_, col); }
  bool ColumnIsNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  std::string ColumnText(int col) const;
  // Reads an id column written by BindId: NULL comes back as the invalid id.
  template <typename Id>
  Id ColumnId(int col) const {
    if (ColumnIsNull(col)) return Id();
    return Id(static_cast<typename Id::rep_type>(ColumnInt(col)));
  }

 private:
  Status Error(int rc) const;

  sqlite3_stmt* stmt_ = nullptr;
  const std::string* path_ = nullptr;  // owned by the Database, which outlives its statements
};

enum class OpenMode {
  kReadOnly,   // never writes the database; SQLite may still create -wal/-shm beside a WAL file
  kImmutable,  // read-only, creating no file: SQLite assumes nobody changes the file while it is open
  kQueryOnly,  // opened read-write so that SQLite can clean up its WAL files, but refuses writes
  kReadWrite,  // the file must exist
  kCreate,     // read-write, created if missing
};

class Database {
 public:
  static StatusOr<std::unique_ptr<Database>> Open(const std::string& path, OpenMode mode);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  const std::string& path() const { return path_; }
  // The name errors give the file, when the connection reads another file on its behalf (a private
  // copy). Call before preparing statements.
  void SetDisplayPath(std::string path) { path_ = std::move(path); }
  sqlite3* handle() const { return db_; }

  // Runs one or more statements that return no rows.
  Status Exec(std::string_view sql);
  StatusOr<Statement> Prepare(std::string_view sql);
  // The first column of the first row of `sql` as an integer (e.g. a PRAGMA or a count).
  StatusOr<int64_t> QueryInt(std::string_view sql);
  bool TableExists(std::string_view table);

  Status Error(int rc, std::string_view what) const { return SqliteStatus(path_, db_, rc, what); }

  // Closes the connection; SQLite checkpoints and removes the -wal/-shm files of the last one.
  // All statements must be destroyed first. Further use of this object is an error.
  Status Close();

 private:
  Database(std::string path, sqlite3* db) : path_(std::move(path)), db_(db) {}

  std::string path_;
  sqlite3* db_ = nullptr;
};

// BEGIN IMMEDIATE on construction (taking the write lock up front, so that a busy database fails
// at the start rather than half-way); rolls back on destruction unless Commit() succeeded.
class Transaction {
 public:
  static StatusOr<Transaction> Begin(Database& db);
  Transaction(Transaction&& other) noexcept : db_(other.db_) { other.db_ = nullptr; }
  Transaction& operator=(Transaction&&) = delete;
  ~Transaction();

  Status Commit();

 private:
  explicit Transaction(Database* db) : db_(db) {}
  Database* db_ = nullptr;  // null once committed or rolled back
};

}  // namespace nimble::store
