// The run database's schema version and migrations, exposed for tools and tests.
// Version lives in PRAGMA user_version; migration N brings a database from N-1 to N in one transaction.
#pragma once

#include <string>

#include "nimble/core/status.h"

namespace nimble::store {

inline constexpr int kSchemaVersion = 2;

// Creates `path` at exactly `version` (1..kSchemaVersion) with no runs: lets tests build older files.
Status CreateDatabaseAtVersion(const std::string& path, int version);

// Upgrades `path` to kSchemaVersion in place (no-op when current). Error for newer or foreign files.
Status UpgradeDatabase(const std::string& path);

}  // namespace nimble::store
