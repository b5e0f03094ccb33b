#include "sqlite_db.h"

#include "digests.h"

#include <cerrno>
#include <cstring>
#include <utility>

namespace nimble::store {
namespace {

// How long a connection waits for another one's write lock before reporting the file busy.
constexpr int kBusyTimeoutMs = 5000;

const char* PrimaryCodeName(int rc) {
  switch (rc & 0xff) {
    case SQLITE_ERROR: return "SQLITE_ERROR";
    case SQLITE_PERM: return "SQLITE_PERM";
    case SQLITE_BUSY: return "SQLITE_BUSY";
    case SQLITE_LOCKED: return "SQLITE_LOCKED";
    case SQLITE_NOMEM: return "SQLITE_NOMEM";
    case SQLITE_READONLY: return "SQLITE_READONLY";
    case SQLITE_IOERR: return "SQLITE_IOERR";
    case SQLITE_CORRUPT: return "SQLITE_CORRUPT";
    case SQLITE_FULL: return "SQLITE_FULL";
    case SQLITE_CANTOPEN: return "SQLITE_CANTOPEN";
    case SQLITE_CONSTRAINT: return "SQLITE_CONSTRAINT";
    case SQLITE_MISMATCH: return "SQLITE_MISMATCH";
    case SQLITE_NOTADB: return "SQLITE_NOTADB";
    default: return "SQLITE_OTHER";
  }
}

StatusCode CodeFor(int rc) {
  switch (rc & 0xff) {
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB: return StatusCode::kDataLoss;
    case SQLITE_PERM:
    case SQLITE_READONLY:
    case SQLITE_AUTH: return StatusCode::kPermissionDenied;
    case SQLITE_CANTOPEN: return StatusCode::kNotFound;
    case SQLITE_CONSTRAINT:
    case SQLITE_MISMATCH: return StatusCode::kInvalidArgument;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_FULL: return StatusCode::kUnavailable;
    default: return StatusCode::kInternal;
  }
}

}  // namespace

Status SqliteStatus(const std::string& path, sqlite3* db, int rc, std::string_view what) {
  std::string msg = path + ": " + std::string(what) + ": ";
  msg += db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  // The OS error says why a file could not be opened (no such directory, permission denied...).
  const int os_errno = db != nullptr ? sqlite3_system_errno(db) : 0;
  if ((rc & 0xff) == SQLITE_CANTOPEN && os_errno != 0) msg += std::string(" (") + std::strerror(os_errno) + ")";
  msg += std::string(" [") + PrimaryCodeName(rc) + "]";
  StatusCode code = CodeFor(rc);
  if ((rc & 0xff) == SQLITE_CANTOPEN && (os_errno == EACCES || os_errno == EROFS || os_errno == EPERM)) {
    code = StatusCode::kPermissionDenied;
  }
  return {code, std::move(msg)};
}

Statement::Statement(sqlite3_stmt* stmt, const std::string* path) : stmt_(stmt), path_(path) {}

Statement::Statement(Statement&& other) noexcept
    : stmt_(std::exchange(other.stmt_, nullptr)), path_(other.path_) {}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(stmt_);
    stmt_ = std::exchange(other.stmt_, nullptr);
    path_ = other.path_;
  }
  return *this;
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Status Statement::Error(int rc) const {
  const char* sql = sqlite3_sql(stmt_);
  std::string what = "executing \"";
  what += sql != nullptr ? std::string_view(sql).substr(0, 80) : std::string_view("?");
  what += "\"";
  return SqliteStatus(*path_, sqlite3_db_handle(stmt_), rc, what);
}

Status Statement::Run() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_DONE) {
    sqlite3_reset(stmt_);
    return OkStatus();
  }
  // The message must be taken before reset, which may overwrite it.
  Status error = rc == SQLITE_ROW ? Internal(*path_ + ": statement returned rows where none were expected")
                                  : Error(rc);
  sqlite3_reset(stmt_);
  return error;
}

StatusOr<bool> Statement::Step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) {
    sqlite3_reset(stmt_);
    return false;
  }
  Status error = Error(rc);
  sqlite3_reset(stmt_);
  return error;
}

std::string Statement::ColumnText(int col) const {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
  if (text == nullptr) return {};
  return std::string(text, static_cast<size_t>(sqlite3_column_bytes(stmt_, col)));
}

namespace {

// "file:<path>?immutable=1", with the characters that URIs reserve percent-encoded.
std::string ImmutableUri(const std::string& path) {
  std::string uri = "file:";
  for (char c : path) {
    if (c == '%' || c == '?' || c == '#') {
      constexpr char kHex[] = "0123456789ABCDEF";
      uri += '%';
      uri += kHex[(static_cast<unsigned char>(c) >> 4) & 0xF];
      uri += kHex[static_cast<unsigned char>(c) & 0xF];
    } else {
      uri += c;
    }
  }
  return uri + "?immutable=1";
}

}  // namespace

StatusOr<std::unique_ptr<Database>> Database::Open(const std::string& path, OpenMode mode) {
  int flags = SQLITE_OPEN_NOMUTEX;
  std::string filename = path;
  switch (mode) {
    case OpenMode::kReadOnly: flags |= SQLITE_OPEN_READONLY; break;
    case OpenMode::kImmutable:
      flags |= SQLITE_OPEN_READONLY | SQLITE_OPEN_URI;
      filename = ImmutableUri(path);
      break;
    case OpenMode::kQueryOnly:
    case OpenMode::kReadWrite: flags |= SQLITE_OPEN_READWRITE; break;
    case OpenMode::kCreate: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE; break;
  }
  sqlite3* handle = nullptr;
  const int rc = sqlite3_open_v2(filename.c_str(), &handle, flags, nullptr);
  if (rc != SQLITE_OK) {
    Status error = SqliteStatus(path, handle, rc, "cannot open");
    sqlite3_close(handle);  // SQLite returns a handle even when opening fails
    return error;
  }
  sqlite3_extended_result_codes(handle, 1);
  sqlite3_busy_timeout(handle, kBusyTimeoutMs);
  if (const int fn = RegisterDigestFunction(handle); fn != SQLITE_OK) {
    Status error = SqliteStatus(path, handle, fn, "registering nimble_digest");
    sqlite3_close(handle);
    return error;
  }
  std::unique_ptr<Database> db(new Database(path, handle));
  if (mode == OpenMode::kQueryOnly) NIMBLE_RETURN_IF_ERROR(db->Exec("PRAGMA query_only = 1"));
  return db;
}

Database::~Database() {
  // sqlite3_close_v2 defers the close if a statement is still alive, rather than leaking it.
  if (db_ != nullptr) sqlite3_close_v2(db_);
}

Status Database::Exec(std::string_view sql) {
  const std::string text(sql);
  char* err = nullptr;
  const int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &err);
  sqlite3_free(err);
  if (rc != SQLITE_OK) return Error(rc, "executing \"" + text.substr(0, 80) + "\"");
  return OkStatus();
}

StatusOr<Statement> Database::Prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  const int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                                    &stmt, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return Error(rc, "preparing \"" + std::string(sql.substr(0, 80)) + "\"");
  }
  return Statement(stmt, &path_);
}

StatusOr<int64_t> Database::QueryInt(std::string_view sql) {
  NIMBLE_ASSIGN_OR_RETURN(Statement stmt, Prepare(sql));
  NIMBLE_ASSIGN_OR_RETURN(bool has_row, stmt.Step());
  if (!has_row) return Internal(path_ + ": \"" + std::string(sql) + "\" returned no row");
  return stmt.ColumnInt(0);
}

bool Database::TableExists(std::string_view table) {
  auto stmt = Prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?");
  if (!stmt.ok()) return false;
  stmt->BindText(1, table);
  auto row = stmt->Step();
  return row.ok() && *row;
}

Status Database::Close() {
  if (db_ == nullptr) return OkStatus();
  const int rc = sqlite3_close(db_);
  if (rc != SQLITE_OK) return Error(rc, "closing");
  db_ = nullptr;
  return OkStatus();
}

StatusOr<Transaction> Transaction::Begin(Database& db) {
  NIMBLE_RETURN_IF_ERROR(db.Exec("BEGIN IMMEDIATE"));
  return Transaction(&db);
}

Transaction::~Transaction() {
  if (db_ != nullptr && !sqlite3_get_autocommit(db_->handle())) {
    // A rollback can only fail if the connection is broken; the caller already has an error then.
    (void)db_->Exec("ROLLBACK");
  }
}

Status Transaction::Commit() {
  Database* db = std::exchange(db_, nullptr);
  Status status = db->Exec("COMMIT");
  if (!status.ok() && !sqlite3_get_autocommit(db->handle())) (void)db->Exec("ROLLBACK");
  return status;
}

}  // namespace nimble::store
