// Builds an ImportedTrace from an open, version-checked Nsight Systems export, one table at a time,
// each kind in start order (devices by id). A missing table is a warning, a row with impossible values
// is skipped and counted; only SQLite failures and missing required columns are errors.
// Single-use (construct, Read() once); single-threaded.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "nimble/core/imported_trace.h"
#include "nsys_export_file.h"
#include "nsys_table.h"
#include "sqlite_db.h"

namespace nimble::store::nsys {

// nsys packs a process and a thread id into one "serialized GlobalId": the OS thread id in bits 0-23,
// the OS process id in bits 24-47, the machine above.
inline int64_t ThreadOfGlobalId(int64_t global_id) {
  return static_cast<int64_t>(static_cast<uint64_t>(global_id) & 0xFFFFFF);
}
inline int64_t ProcessOfGlobalId(int64_t global_id) {
  return static_cast<int64_t>((static_cast<uint64_t>(global_id) >> 24) & 0xFFFFFF);
}

// What the reader says about one table: where it is and the names of its stats.
struct TableInfo {
  const char* table;
  const char* missing_stat;  // warning when the table is absent; nullptr: absence is normal
  const char* missing_why;
  const char* skipped_stat;
};

class NsysReader {
 public:
  NsysReader(Database& db, SchemaVersion version) : db_(db), version_(std::move(version)) {}

  StatusOr<ImportedTrace> Read();

 private:
  // Opens `info.table` for reading, or nullopt (with its warning) when the export lacks it.
  StatusOr<std::optional<ExportTable>> OpenTable(const TableInfo& info, std::vector<Column> columns,
                                                 std::string_view tail);
  // Adds the table's skipped-rows warning and collects its unknown enum values.
  void Finish(const TableInfo& info, const ExportTable& table);
  // The Trace's id of the StringIds string in column `col`; a problem on the row when it names none.
  StatusOr<StringId> StringAt(ExportTable& row, int col, bool nullable);
  // start, end, deviceId, contextId, streamId (when `with_stream`) and correlationId from columns 0-5;
  // returns the process of globalPid (column 6), -1 when NULL.
  template <typename Record>
  int64_t ReadGpuActivity(ExportTable& row, Record& r, bool with_stream);
  void Warn(std::string name, int64_t value, std::string description);

  Status ReadDevices();
  Status ReadKernels();
  Status ReadMemcpys();
  Status ReadMemsets();
  Status ReadSyncs();
  Status ReadGraphLaunches();
  Status ReadApiCalls();
  Status ReadDomains();
  Status ReadRanges();
  Status ReadSessionStart();
  void SummarizeLinks();

  Database& db_;
  SchemaVersion version_;
  ImportedTrace out_;
  Statement string_by_id_;
  std::unordered_map<int64_t, StringId> strings_;           // StringIds.id -> Trace id
  std::map<std::pair<int64_t, int64_t>, StringId> domains_;  // (process, domainId) -> domain name
  std::set<int64_t> gpu_processes_;                          // processes with GPU work
  std::unordered_set<int64_t> api_correlations_;
  bool have_api_table_ = false;
  std::map<std::string, int64_t> unknown_values_;  // "TABLE.column value" -> rows
};

}  // namespace nimble::store::nsys
