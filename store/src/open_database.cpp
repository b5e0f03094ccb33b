#include "open_database.h"

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>

#include "db_file.h"
#include "migrations.h"
#include "nimble/store/schema.h"

namespace nimble::store {
namespace {

// Page size of new files: larger pages mean fewer page splits and WAL frames per record loaded.
constexpr int kPageSizeBytes = 16384;
// Page cache of a writing connection, in KiB (SQLite reads a negative cache_size as KiB). Records
// arrive in key order, so inserts touch only the right edge of each B-tree: 8 MiB measured 5 % less
// CPU per record than 64 MiB (bench/results/store_writer.md).
constexpr int kWriterCacheKib = 8 * 1024;
// WAL pages after which a commit checkpoints: a few batches' worth, so the log stays bounded.
constexpr int kWalAutocheckpointPages = 4096;

}  // namespace

Status SwitchToWal(Database& db) {
  NIMBLE_ASSIGN_OR_RETURN(Statement wal, db.Prepare("PRAGMA journal_mode = WAL"));
  NIMBLE_ASSIGN_OR_RETURN(bool has_row, wal.Step());
  if (!has_row || wal.ColumnText(0) != "wal") {
    return Unavailable(db.path() + ": cannot switch the database to WAL mode");
  }
  return OkStatus();
}

Status ConfigureForWriting(Database& db) {
  if (sqlite3_db_readonly(db.handle(), "main") == 1) {
    return PermissionDenied(db.path() + ": cannot be written (read-only file, directory or file system)");
  }
  NIMBLE_RETURN_IF_ERROR(SwitchToWal(db));
  // temp_store = MEMORY keeps the statement journals of multi-row INSERTs off temporary files:
  // measured 13 % of the writer's CPU time (bench/results/store_writer.md).
  return db.Exec("PRAGMA synchronous = NORMAL; PRAGMA temp_store = MEMORY; PRAGMA cache_size = -" +
                 std::to_string(kWriterCacheKib) + "; PRAGMA wal_autocheckpoint = " +
                 std::to_string(kWalAutocheckpointPages));
}

Status UpgradeOpenDatabase(Database& db, int from) {
  NIMBLE_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  for (int version = from + 1; version <= kSchemaVersion; ++version) {
    Status status = ApplyMigration(db, version);
    if (!status.ok()) {
      return status.WithContext("upgrading from schema " + std::to_string(from) + " to " + std::to_string(version));
    }
  }
  return txn.Commit();
}

namespace {

// How a reader opens `path`: query-only read-write where it could write the file (so SQLite removes
// its -wal/-shm on close), read-only where it cannot. Where not even the directory is writable and
// there is no log, SQLite could not create its -shm, and no WAL writer can be at work either (it
// would need a log file there): the file is then opened immutable.
OpenMode ReadingMode(const std::string& path) {
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = ".";
  // AT_EACCESS: what this process may do with its effective ids, which is what SQLite will meet.
  const bool dir_writable = ::faccessat(AT_FDCWD, dir.c_str(), W_OK, AT_EACCESS) == 0;
  if (dir_writable && ::faccessat(AT_FDCWD, path.c_str(), W_OK, AT_EACCESS) == 0) return OpenMode::kQueryOnly;
  if (dir_writable || PathExists(path + "-wal")) return OpenMode::kReadOnly;
  return OpenMode::kImmutable;
}

}  // namespace

StatusOr<int> ReadSchemaVersion(Database& db) {
  NIMBLE_ASSIGN_OR_RETURN(int64_t application_id, db.QueryInt("PRAGMA application_id"));
  if (application_id != kApplicationId) {
    return FailedPrecondition(db.path() + ": a SQLite database, but not a Nimble run database (application_id " +
                              std::to_string(application_id) + ")");
  }
  NIMBLE_ASSIGN_OR_RETURN(int64_t version, db.QueryInt("PRAGMA user_version"));
  NIMBLE_RETURN_IF_ERROR(CheckSchemaVersion(db.path(), version));
  return static_cast<int>(version);
}

StatusOr<std::unique_ptr<Database>> OpenForReading(const std::string& path) {
  NIMBLE_ASSIGN_OR_RETURN(FileHeader header, InspectDatabaseFile(path));
  if (header.user_version < kSchemaVersion) NIMBLE_RETURN_IF_ERROR(UpgradeDatabase(path));
  const OpenMode mode = ReadingMode(path);
  NIMBLE_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, Database::Open(path, mode));
  NIMBLE_ASSIGN_OR_RETURN(int version, ReadSchemaVersion(*db));
  if (version < kSchemaVersion) {
    // The header lagged behind the log; upgrade now that the real version is known, then reopen.
    NIMBLE_RETURN_IF_ERROR(db->Close());
    NIMBLE_RETURN_IF_ERROR(UpgradeDatabase(path));
    NIMBLE_ASSIGN_OR_RETURN(db, Database::Open(path, mode));
  }
  return db;
}

StatusOr<std::unique_ptr<Database>> OpenForWriting(const std::string& path) {
  NIMBLE_RETURN_IF_ERROR(InspectDatabaseFile(path).status());
  NIMBLE_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, Database::Open(path, OpenMode::kReadWrite));
  NIMBLE_ASSIGN_OR_RETURN(int version, ReadSchemaVersion(*db));
  NIMBLE_RETURN_IF_ERROR(ConfigureForWriting(*db));
  if (version < kSchemaVersion) NIMBLE_RETURN_IF_ERROR(UpgradeOpenDatabase(*db, version));
  return db;
}

StatusOr<std::unique_ptr<Database>> CreateNewDatabase(const std::string& path, int version) {
  if (PathExists(path)) return AlreadyExists(path + ": already exists");
  NIMBLE_RETURN_IF_ERROR(CheckParentDirectory(path));
  NIMBLE_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, Database::Open(path, OpenMode::kCreate));
  // The page size can only change before the first table exists and before WAL mode is on.
  NIMBLE_RETURN_IF_ERROR(db->Exec("PRAGMA page_size = " + std::to_string(kPageSizeBytes)));
  NIMBLE_RETURN_IF_ERROR(ConfigureForWriting(*db));
  NIMBLE_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(*db));
  for (int v = 1; v <= version; ++v) NIMBLE_RETURN_IF_ERROR(ApplyMigration(*db, v));
  NIMBLE_RETURN_IF_ERROR(txn.Commit());
  return db;
}

}  // namespace nimble::store
