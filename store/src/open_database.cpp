#include "open_database.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>

#include "db_file.h"
#include "integrity.h"
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

bool Writable(const std::string& path) {
  // AT_EACCESS: what this process may do with its effective ids, which is what SQLite will meet.
  return ::faccessat(AT_FDCWD, path.c_str(), W_OK, AT_EACCESS) == 0;
}

// How a reader opens `path` without changing anything beside it: query-only read-write where it could
// write the file (so SQLite removes its -wal/-shm on close); read-only where a log shows that a writer
// may be at work (its -shm is needed to read the log); otherwise immutable, which creates no file.
OpenMode ReadingMode(const std::string& path) {
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = ".";
  if (Writable(dir.string()) && Writable(path)) return OpenMode::kQueryOnly;
  if (PathExists(path + "-wal")) return OpenMode::kReadOnly;
  return OpenMode::kImmutable;
}

// A file of an older schema is read through a private copy brought up to date, so that reading never
// migrates the user's file: copied (with its log, which may hold committed pages) into the temporary
// directory, upgraded there, opened immutable and unlinked at once, so nothing is left behind even if
// the process dies. Errors keep naming the user's file.
StatusOr<std::unique_ptr<Database>> OpenUpgradedCopy(const std::string& path) {
  static std::atomic<int> counter{0};
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path copy = fs::temp_directory_path(ec) /
                        ("nimble-read-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".db");
  if (ec) return Unavailable(path + ": no temporary directory for reading an older schema: " + ec.message());
  Status status = [&]() -> Status {
    fs::copy_file(path, copy, fs::copy_options::overwrite_existing, ec);
    if (!ec && PathExists(path + "-wal")) fs::copy_file(path + "-wal", copy.string() + "-wal", fs::copy_options::overwrite_existing, ec);
    if (ec) return Unavailable(path + ": cannot copy it to read its older schema: " + ec.message());
    return UpgradeDatabase(copy.string());
  }();
  std::unique_ptr<Database> db;
  if (status.ok()) {
    auto opened = Database::Open(copy.string(), OpenMode::kImmutable);
    if (opened.ok()) db = std::move(*opened);
    status = opened.status();
  }
  (void)RemoveDatabaseFiles(copy.string());  // an open file stays readable after its name is gone
  if (!status.ok()) {
    return Status(status.code(), path + ": reading its older schema through an upgraded copy failed: " + status.message());
  }
  db->SetDisplayPath(path);
  return db;
}

}  // namespace

StatusOr<std::unique_ptr<Database>> OpenForReading(const std::string& path) {
  NIMBLE_ASSIGN_OR_RETURN(FileHeader header, InspectDatabaseFile(path));
  std::unique_ptr<Database> db;
  if (header.user_version < kSchemaVersion) {
    NIMBLE_ASSIGN_OR_RETURN(db, OpenUpgradedCopy(path));
  } else {
    NIMBLE_ASSIGN_OR_RETURN(db, Database::Open(path, ReadingMode(path)));
    NIMBLE_ASSIGN_OR_RETURN(int version, ReadSchemaVersion(*db));
    if (version < kSchemaVersion) {
      // The header lagged behind the log: read through an upgraded copy after all.
      NIMBLE_RETURN_IF_ERROR(db->Close());
      NIMBLE_ASSIGN_OR_RETURN(db, OpenUpgradedCopy(path));
    }
  }
  NIMBLE_RETURN_IF_ERROR(CheckOnOpen(*db, header.size_bytes));
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

StatusOr<std::unique_ptr<Database>> OpenForStoringResults(const std::string& path) {
  NIMBLE_ASSIGN_OR_RETURN(FileHeader header, InspectDatabaseFile(path));
  if (header.user_version < kSchemaVersion) {
    return FailedPrecondition(path + ": has schema " + std::to_string(header.user_version) + "; results are stored " +
                              "only in files of schema " + std::to_string(kSchemaVersion) +
                              " (`nimble-prof upgrade " + path + "` upgrades it in place)");
  }
  if (!Writable(path)) return PermissionDenied(path + ": cannot be written (read-only file)");
  NIMBLE_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, Database::Open(path, OpenMode::kReadWrite));
  NIMBLE_ASSIGN_OR_RETURN(int version, ReadSchemaVersion(*db));
  if (version < kSchemaVersion) return FailedPrecondition(path + ": has schema " + std::to_string(version));
  NIMBLE_RETURN_IF_ERROR(CheckOnOpen(*db, header.size_bytes));
  NIMBLE_RETURN_IF_ERROR(ConfigureForWriting(*db));
  return db;
}

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
