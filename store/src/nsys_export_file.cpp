#include "nsys_export_file.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <filesystem>
#include <optional>
#include <string_view>
#include <system_error>

#include "db_file.h"
#include "integrity.h"
#include "nimble/store/nsys_export.h"

namespace nimble::store::nsys {
namespace {

// Tables of which an export has at least one besides StringIds (nsys creates tables lazily, so no
// single activity table is always there).
constexpr std::array<const char*, 7> kExportMarkers = {
    "META_DATA_EXPORT", "EXPORT_META_DATA", "TARGET_INFO_SESSION_START_TIME", "CUPTI_ACTIVITY_KIND_KERNEL",
    "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS", "TARGET_INFO_GPU"};
// Tables only a Nimble run database has.
constexpr std::array<const char*, 2> kNimbleOnly = {"runs", "kernel_launch_configs"};

// "3.24.14" (or "3.24") as numbers; false for anything else.
bool ParseVersion(std::string_view text, SchemaVersion& v) {
  std::array<int, 3> parts{0, 0, 0};
  size_t count = 0;
  const char* p = text.data();
  const char* end = text.data() + text.size();
  while (count < parts.size()) {
    const auto [next, ec] = std::from_chars(p, end, parts[count]);
    if (ec != std::errc() || next == p || parts[count] < 0) return false;
    ++count;
    p = next;
    if (p == end) break;
    if (*p != '.') return false;
    ++p;
  }
  if (p != end || count < 2) return false;
  v.major = parts[0];
  v.minor = parts[1];
  v.micro = parts[2];
  return true;
}

// The value of `name` in the metadata table, or nullopt when it has none.
StatusOr<std::optional<std::string>> MetaValue(Database& db, const std::string& table, std::string_view name) {
  NIMBLE_ASSIGN_OR_RETURN(Statement q, db.Prepare("SELECT value FROM " + table + " WHERE name = ?1 LIMIT 1"));
  q.BindText(1, name);
  NIMBLE_ASSIGN_OR_RETURN(bool found, q.Step());
  if (!found || q.ColumnIsNull(0)) return std::optional<std::string>();
  return std::optional<std::string>(q.ColumnText(0));
}

}  // namespace

std::string KnownVersions() {
  return std::to_string(kNsysSchemaMajor) + "." + std::to_string(kNsysSchemaMinorMin) + " to " +
         std::to_string(kNsysSchemaMajor) + "." + std::to_string(kNsysSchemaMinorMax);
}

Status CheckExportFile(const std::string& path) {
  NIMBLE_ASSIGN_OR_RETURN(const FileHeader header,
                          ReadSqliteHeader(path, "an Nsight Systems SQLite export (write one with `nsys export --type sqlite`)"));
  if (header.application_id == kApplicationId) {
    return FailedPrecondition(path + ": a Nimble run database, not an Nsight Systems export: open it as a run "
                                     "database instead of importing it");
  }
  return OkStatus();
}

StatusOr<std::unique_ptr<Database>> OpenExport(const std::string& path) {
  NIMBLE_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, Database::Open(path, OpenMode::kImmutable));
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec || static_cast<int64_t>(size) > kQuickCheckMaxBytes) return db;
  NIMBLE_ASSIGN_OR_RETURN(Statement q, db->Prepare("PRAGMA quick_check(5)"));
  std::string problems;
  while (true) {
    NIMBLE_ASSIGN_OR_RETURN(bool has_row, q.Step());
    if (!has_row) break;
    const std::string line = q.ColumnText(0);
    if (line != "ok") problems += (problems.empty() ? "" : "; ") + line;
  }
  if (!problems.empty()) return DataLoss(path + ": the file is corrupt: SQLite's quick_check found: " + problems);
  return db;
}

bool HasExportTables(Database& db) {
  if (!db.TableExists("StringIds")) return false;
  for (const char* table : kNimbleOnly) {
    if (db.TableExists(table)) return false;
  }
  for (const char* table : kExportMarkers) {
    if (db.TableExists(table)) return true;
  }
  return false;
}

StatusOr<SchemaVersion> ReadSchemaVersion(Database& db) {
  const std::string known = "; this build reads export schema versions " + KnownVersions();
  std::string table;
  for (const char* candidate : {"META_DATA_EXPORT", "EXPORT_META_DATA"}) {
    if (db.TableExists(candidate)) {
      table = candidate;
      break;
    }
  }
  if (table.empty()) {
    return FailedPrecondition(db.path() + ": an Nsight Systems export with no schema version (neither "
                              "META_DATA_EXPORT nor EXPORT_META_DATA): written by a release too old to know" + known);
  }
  NIMBLE_ASSIGN_OR_RETURN(std::optional<std::string> text, MetaValue(db, table, "EXPORT_SCHEMA_VERSION"));
  if (!text) {
    return FailedPrecondition(db.path() + ": " + table + " has no EXPORT_SCHEMA_VERSION, so the export's schema "
                              "version is unknown" + known);
  }
  SchemaVersion v;
  v.text = text->substr(0, 40);
  NIMBLE_ASSIGN_OR_RETURN(std::optional<std::string> product, MetaValue(db, table, "EXPORT_PRODUCT_VERSION"));
  v.product_version = product.value_or("").substr(0, 40);
  if (!ParseVersion(*text, v)) {
    return FailedPrecondition(db.path() + ": unreadable export schema version \"" + v.text + "\" in " + table +
                              ".EXPORT_SCHEMA_VERSION" + known);
  }
  const bool too_new = v.major > kNsysSchemaMajor || (v.major == kNsysSchemaMajor && v.minor > kNsysSchemaMinorMax);
  const bool too_old = v.major < kNsysSchemaMajor || (v.major == kNsysSchemaMajor && v.minor < kNsysSchemaMinorMin);
  if (too_new || too_old) {
    return FailedPrecondition(db.path() + ": export schema version " + v.text + " is " +
                              (too_new ? "newer" : "older") + " than this build knows" + known +
                              (too_new ? " (a minor version may rename or retype columns)" : ""));
  }
  return v;
}

}  // namespace nimble::store::nsys
