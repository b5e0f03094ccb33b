#include "nimble/store/schema.h"

#include <memory>
#include <vector>

#include "db_file.h"
#include "digests.h"
#include "integrity.h"
#include "open_database.h"

namespace nimble::store {
namespace {

Status UpgradeFile(const std::string& path, const FileHeader& header) {
  NIMBLE_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, Database::Open(path, OpenMode::kReadWrite));
  // SQLite opens a file it may not write read-only; nothing can be read from a WAL file that way
  // either when its directory is read-only too, so decide from the header alone.
  if (sqlite3_db_readonly(db->handle(), "main") == 1) {
    if (header.user_version == kSchemaVersion) return OkStatus();
    return PermissionDenied(path + ": the file cannot be written");
  }
  NIMBLE_ASSIGN_OR_RETURN(int version, ReadSchemaVersion(*db));
  if (version == kSchemaVersion) return db->Close();
  NIMBLE_RETURN_IF_ERROR(ConfigureForWriting(*db));
  NIMBLE_RETURN_IF_ERROR(UpgradeOpenDatabase(*db, version));
  return db->Close();
}

}  // namespace

Status CreateDatabaseAtVersion(const std::string& path, int version) {
  if (version < 1 || version > kSchemaVersion) {
    return InvalidArgument(path + ": cannot create schema version " + std::to_string(version) +
                           "; this build knows versions 1 to " + std::to_string(kSchemaVersion));
  }
  if (PathExists(path)) return AlreadyExists(path + ": already exists");
  NIMBLE_RETURN_IF_ERROR(CheckParentDirectory(path));
  // Built beside the final path and moved into place, like a run, so that a failure leaves nothing.
  const std::string partial = PartialPath(path);
  NIMBLE_RETURN_IF_ERROR(RemoveDatabaseFiles(partial));
  Status status = [&]() -> Status {
    auto db = CreateNewDatabase(partial, version);
    if (!db.ok()) return db.status().WithContext(path + ": cannot create the database");
    NIMBLE_RETURN_IF_ERROR((*db)->Close());
    NIMBLE_RETURN_IF_ERROR(CheckNoCompanionFiles(partial));
    return RenameDurably(partial, path);
  }();
  if (!status.ok()) (void)RemoveDatabaseFiles(partial);
  return status;
}

Status UpgradeDatabase(const std::string& path) {
  NIMBLE_ASSIGN_OR_RETURN(FileHeader header, InspectDatabaseFile(path));
  Status status = UpgradeFile(path, header);
  if (status.ok() || header.user_version >= kSchemaVersion) return status;
  return {status.code(), path + ": schema " + std::to_string(header.user_version) + " must be upgraded to " +
                             std::to_string(kSchemaVersion) + " before use, and the upgrade failed (the file is " +
                             "unchanged): " + status.message()};
}

StatusOr<int> FileSchemaVersion(const std::string& path) {
  NIMBLE_ASSIGN_OR_RETURN(FileHeader header, InspectDatabaseFile(path));
  return header.user_version;
}

StatusOr<int> SealUnsealedRuns(const std::string& path) {
  NIMBLE_ASSIGN_OR_RETURN(FileHeader header, InspectDatabaseFile(path));
  NIMBLE_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, OpenForWriting(path));
  NIMBLE_RETURN_IF_ERROR(CheckOnOpen(*db, header.size_bytes));
  std::vector<RunId> unsealed;
  {
    NIMBLE_ASSIGN_OR_RETURN(Statement runs, db->Prepare("SELECT runId FROM runs ORDER BY runId"));
    while (true) {
      NIMBLE_ASSIGN_OR_RETURN(bool has_row, runs.Step());
      if (!has_row) break;
      unsealed.push_back(RunId(runs.ColumnInt(0)));
    }
  }
  int sealed = 0;
  NIMBLE_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(*db));
  for (RunId run : unsealed) {
    NIMBLE_ASSIGN_OR_RETURN(const bool has, HasDigests(*db, run));
    if (has) continue;
    NIMBLE_RETURN_IF_ERROR(WriteDigests(*db, run));
    ++sealed;
  }
  NIMBLE_RETURN_IF_ERROR(txn.Commit());
  NIMBLE_RETURN_IF_ERROR(db->Close());
  return sealed;
}

}  // namespace nimble::store
