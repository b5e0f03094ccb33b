// How the store opens run databases: file checks before SQLite, identity and version checks after,
// upgrades of older files (all pending migrations in one transaction), and the writer's settings.
// Every function returns errors that start with the path. One thread per returned Database.
#pragma once

#include <memory>
#include <string>

#include "sqlite_db.h"

namespace nimble::store {

// Opens an existing run database for reading and checks it (integrity.h). Never changes the file or
// leaves anything beside it: an older schema is read through a private upgraded copy; a writable file
// gets a query-only connection (SQLite removes its -wal/-shm on close); a read-only one is opened
// immutable unless a log shows a writer at work.
StatusOr<std::unique_ptr<Database>> OpenForReading(const std::string& path);

// Opens an existing run database of the current schema for reading and storing results, checked like
// OpenForReading: FailedPrecondition for an older schema (never upgraded here: `nimble-prof upgrade`
// does that), PermissionDenied for a file that cannot be written.
StatusOr<std::unique_ptr<Database>> OpenForStoringResults(const std::string& path);

// Opens an existing run database for writing in place, upgraded to kSchemaVersion, with the writer's
// settings (WAL, synchronous=NORMAL).
StatusOr<std::unique_ptr<Database>> OpenForWriting(const std::string& path);

// Creates a new database file at `path`, which must not exist, at schema `version`, with the
// writer's settings.
StatusOr<std::unique_ptr<Database>> CreateNewDatabase(const std::string& path, int version);

// The writer's settings: WAL, synchronous=NORMAL, a large page cache. PermissionDenied when the
// connection could only open the file read-only.
Status ConfigureForWriting(Database& db);

// journal_mode = WAL (persistent in the file); Unavailable when SQLite refuses.
Status SwitchToWal(Database& db);

// Brings an open database from schema `from` to kSchemaVersion: all pending migrations commit
// together or not at all.
Status UpgradeOpenDatabase(Database& db, int from);

// The schema version of an open database, after checking that it is a Nimble run database this
// build can read.
StatusOr<int> ReadSchemaVersion(Database& db);

}  // namespace nimble::store
