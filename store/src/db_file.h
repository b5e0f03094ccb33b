// File-level handling of run databases, below SQLite: reading the 100-byte SQLite header to reject
// foreign, empty, truncated or newer files before SQLite touches them (so a rejected file gets no
// -wal/-shm companions), and the "<path>.partial" build-then-rename protocol. Stateless functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "nimble/core/status.h"

namespace nimble::store {

// PRAGMA application_id of every Nimble run database: "NMBL" in ASCII.
inline constexpr int32_t kApplicationId = 0x4E4D424C;

struct FileHeader {
  int64_t size_bytes = 0;
  int32_t page_size_bytes = 0;
  int32_t user_version = 0;  // the schema version, as of the last checkpoint
  int32_t application_id = 0;
};

// Reads the header of an existing SQLite file and checks it as far as SQLite's format goes (magic, page
// size, not truncated); `kind` names what the file should be, for messages ("<path>: the file is empty,
// not <kind>"). NotFound (missing), FailedPrecondition (a directory), DataLoss (empty, not SQLite,
// truncated). The application id and version are the caller's to check.
StatusOr<FileHeader> ReadSqliteHeader(const std::string& path, std::string_view kind);

// ReadSqliteHeader for a Nimble run database, then its application id and schema version. Errors,
// each starting with the path:
// NotFound (missing), FailedPrecondition (a directory), DataLoss (empty, not SQLite, truncated),
// FailedPrecondition (SQLite but not Nimble, or written by a newer Nimble).
StatusOr<FileHeader> InspectDatabaseFile(const std::string& path);

// Error unless `version` is one this build reads (1..kSchemaVersion); used after SQLite opens a file
// too, since a header can lag behind a WAL that has not been checkpointed.
Status CheckSchemaVersion(const std::string& path, int64_t version);

bool PathExists(const std::string& path);

// NotFound when the directory that would hold `path` does not exist or is not a directory.
Status CheckParentDirectory(const std::string& path);

std::string PartialPath(const std::string& path);

// Removes `path` and its -wal, -shm and -journal companions; absent files are fine.
Status RemoveDatabaseFiles(const std::string& path);

// Error when SQLite left a -wal, -shm or -journal beside `path` (it removes them when the last
// connection closes cleanly), so that a rename never separates a database from its log.
Status CheckNoCompanionFiles(const std::string& path);

// fsync of `path`'s contents, for a file written without syncs before it is moved into place.
Status SyncFile(const std::string& path);

// Renames `from` to `to` and syncs the directory, so that the rename survives a power loss.
Status RenameDurably(const std::string& from, const std::string& to);

}  // namespace nimble::store
