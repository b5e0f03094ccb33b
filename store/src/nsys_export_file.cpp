#include "nsys_export_file.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string_view>
#include <system_error>

#include "db_file.h"
#include "integrity.h"
#include "nimble/store/nsys_export.h"

namespace nimble::store::nsys {
namespace {

namespace fs = std::filesystem;

// Offsets in the SQLite database header (https://www.sqlite.org/fileformat.html, section 1.3).
constexpr size_t kHeaderBytes = 100;
constexpr size_t kPageSizeOffset = 16;
constexpr size_t kChangeCounterOffset = 24;
constexpr size_t kPageCountOffset = 28;
constexpr size_t kApplicationIdOffset = 68;
constexpr size_t kVersionValidForOffset = 92;
constexpr std::string_view kMagic("SQLite format 3\0", 16);

// Tables of which an export has at least one besides StringIds (nsys creates tables lazily, so no
// single activity table is always there).
constexpr std::array<const char*, 7> kExportMarkers = {
    "META_DATA_EXPORT", "EXPORT_META_DATA", "TARGET_INFO_SESSION_START_TIME", "CUPTI_ACTIVITY_KIND_KERNEL",
    "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS", "TARGET_INFO_GPU"};
// Tables only a Nimble run database has.
constexpr std::array<const char*, 2> kNimbleOnly = {"runs", "kernel_launch_configs"};

uint32_t BigEndian32(const std::array<char, kHeaderBytes>& h, size_t offset) {
  uint32_t v = 0;
  for (size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<uint8_t>(h[offset + i]);
  return v;
}

std::string NotAnExport(const std::string& path, const std::string& what) {
  return path + ": " + what + ", so not an Nsight Systems SQLite export (write one with `nsys export --type sqlite`)";
}

Status CheckHeader(const std::string& path, const std::array<char, kHeaderBytes>& h, int64_t size_bytes) {
  if (std::string_view(h.data(), kMagic.size()) != kMagic) return DataLoss(NotAnExport(path, "not a SQLite database"));
  const uint32_t raw_page_size = (static_cast<uint32_t>(static_cast<uint8_t>(h[kPageSizeOffset])) << 8) |
                                 static_cast<uint8_t>(h[kPageSizeOffset + 1]);
  const int64_t page_size = raw_page_size == 1 ? 65536 : raw_page_size;
  if (page_size < 512 || (page_size & (page_size - 1)) != 0) {
    return DataLoss(path + ": corrupt SQLite header (page size " + std::to_string(raw_page_size) + ")");
  }
  // The page count is trustworthy only when the header says it is current.
  const uint32_t pages = BigEndian32(h, kPageCountOffset);
  if (pages != 0 && BigEndian32(h, kChangeCounterOffset) == BigEndian32(h, kVersionValidForOffset) &&
      size_bytes < int64_t{pages} * page_size) {
    return DataLoss(path + ": the file is truncated: it has " + std::to_string(size_bytes) + " bytes of the " +
                    std::to_string(int64_t{pages} * page_size) + " its SQLite header declares");
  }
  if (static_cast<int32_t>(BigEndian32(h, kApplicationIdOffset)) == kApplicationId) {
    return FailedPrecondition(path + ": a Nimble run database, not an Nsight Systems export: open it as a run "
                                     "database instead of importing it");
  }
  return OkStatus();
}

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
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) return NotFound(path + ": no such file");
  if (fs::is_directory(status)) return FailedPrecondition(path + ": is a directory, not an Nsight Systems export");
  const auto size = fs::file_size(path, ec);
  if (ec || size == 0) return DataLoss(NotAnExport(path, "the file is empty"));
  std::ifstream in(path, std::ios::binary);
  if (!in) return PermissionDenied(path + ": cannot read: " + std::strerror(errno));
  std::array<char, kHeaderBytes> h{};
  in.read(h.data(), h.size());
  const auto got = static_cast<size_t>(in.gcount());
  if (got < kHeaderBytes) {
    const size_t compared = std::min(got, kMagic.size());
    if (std::string_view(h.data(), compared) == kMagic.substr(0, compared)) {
      return DataLoss(path + ": the file is truncated: " + std::to_string(size) + " bytes, shorter than a SQLite header");
    }
    return DataLoss(NotAnExport(path, "not a SQLite database"));
  }
  return CheckHeader(path, h, static_cast<int64_t>(size));
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
