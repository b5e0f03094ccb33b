// The SQL of each schema version, as migrations: migration N takes a database from version N-1 to N.
// docs/schema.md describes every table; a change here needs a new migration and a line there.
// Stateless; callers own the connection and the transaction.
#pragma once

#include "sqlite_db.h"

namespace nimble::store {

// Runs migration `version` (1..kSchemaVersion) inside the caller's transaction, including setting
// PRAGMA user_version (and, for version 1, PRAGMA application_id).
Status ApplyMigration(Database& db, int version);

}  // namespace nimble::store
