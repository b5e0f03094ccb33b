// The file side of reading an Nsight Systems export: checks below SQLite (present, a SQLite file, not
// truncated, not a Nimble run database), opening it so that SQLite never writes into or beside it,
// recognising the export's tables, and reading and checking its schema version. Every error starts
// with the path. Stateless functions; one thread per returned Database.
#pragma once

#include <memory>
#include <string>

#include "nimble/core/status.h"
#include "sqlite_db.h"

namespace nimble::store::nsys {

struct SchemaVersion {
  int major = 0;
  int minor = 0;
  int micro = 0;
  std::string text;            // as the export wrote it, e.g. "3.24.14"
  std::string product_version; // EXPORT_PRODUCT_VERSION (the nsys release), "" when absent
};

// Reads the 100-byte SQLite header: NotFound, DataLoss (empty, not SQLite, truncated) or
// FailedPrecondition (a directory, or a Nimble run database) before SQLite sees the file.
Status CheckExportFile(const std::string& path);

// Opens a file that passed CheckExportFile immutable (no lock, journal or -wal/-shm is ever created),
// and runs SQLite's quick_check where the file is small enough for it to be cheap.
StatusOr<std::unique_ptr<Database>> OpenExport(const std::string& path);

// True when the open file has the tables of an export and none of a Nimble run database's own.
bool HasExportTables(Database& db);

// EXPORT_SCHEMA_VERSION from META_DATA_EXPORT (or EXPORT_META_DATA, its name before 2024), checked
// against the versions this build reads; FailedPrecondition naming the version found and those known.
StatusOr<SchemaVersion> ReadSchemaVersion(Database& db);

// "3.1 to 3.28": the versions ReadSchemaVersion accepts, for messages.
std::string KnownVersions();

}  // namespace nimble::store::nsys
