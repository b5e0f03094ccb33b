// Loads one run's activity records into a Trace, in the order they were written (kernels by
// kernelIndex, other tables by rowid), translating database string ids into the Trace's own table.
// Single-use: construct, call Load() once. Single-threaded.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "nimble/core/trace.h"
#include "sqlite_db.h"

namespace nimble::store {

class TraceLoader {
 public:
  TraceLoader(Database& db, RunId run) : db_(db), run_(run) {}

  StatusOr<Trace> Load();

 private:
  // Prepares `sql` (whose one parameter is the run id) and calls `read_row` for each row.
  template <typename ReadRow>
  Status ForEachRow(const char* sql, ReadRow read_row);
  // The Trace's id of the string in column `col` (a StringIds id, or NULL for an invalid id).
  StatusOr<StringId> StringAt(const Statement& row, int col);

  Status LoadDevices();
  Status LoadKernels();
  Status LoadMemcpys();
  Status LoadMemsets();
  Status LoadSyncs();
  Status LoadApiCalls();
  Status LoadRanges();
  Status LoadExternalCorrelations();
  Status LoadOverheads();
  Status LoadGraphLaunches();

  Database& db_;
  RunId run_;
  Trace trace_;
  Statement string_by_id_;
  std::unordered_map<int64_t, StringId> string_ids_;  // database id -> Trace id
};

}  // namespace nimble::store
