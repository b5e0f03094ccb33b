// The activity records a RunWriter buffers between flushes, and the prepared INSERT statements that
// write a buffer into the activity tables. Kernels and API calls, the bulk of a trace, go in with one
// INSERT ... SELECT per batch from a virtual table that shows SQLite the buffered records (no
// per-value binding, batch_tables.h); the other tables use statements bound by column index, each
// inserting kRowsPerStatement rows at once. Single-threaded; the statements belong to one connection
// and must die before it closes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "nimble/core/activity.h"
#include "nimble/core/activity_records.h"
#include "sqlite_db.h"
#include "batch_tables.h"
#include "launch_config_cache.h"
#include "string_cache.h"

namespace nimble::store {

// What a RunWriter buffers between flushes.
using ActivityBuffer = ActivityRecords;

// One activity table's INSERT statement, prepared for one row and for kRowsPerStatement rows.
struct TableInsert {
  // 128 rows per statement measured 10 % less CPU than 32 (bench/results/store_writer.md);
  // 128 x 12 parameters stay far below SQLite's limit of 32766.
  static constexpr int kRowsPerStatement = 128;

  const char* table = "";
  int columns = 0;
  Statement one_row;
  Statement many_rows;
};

class ActivityInserter {
 public:
  static StatusOr<ActivityInserter> Prepare(Database& db);

  // Inserts every record of `buffer` into run `run`, inside the caller's transaction. Kernels get
  // kernel indexes first_kernel_index, first_kernel_index + 1, ... in buffer order. String ids must
  // have been noted in, and resolved by, `strings`; `configs` resolves (and inserts) the kernels'
  // launch configurations. An error names the table and the record.
  Status Insert(const ActivityBuffer& buffer, RunId run, int64_t first_kernel_index, const StringCache& strings,
                LaunchConfigCache& configs);

 private:
  ActivityInserter() = default;
  Status InsertKernels(const std::vector<KernelRecord>& kernels, RunId run, int64_t first_kernel_index,
                       const StringCache& strings, LaunchConfigCache& configs);
  Status UpdateTimeBlocks(const std::vector<KernelRecord>& kernels, RunId run, int64_t first_kernel_index);
  Status InsertGpuActivity(const ActivityBuffer& b, RunId run, int64_t first_kernel_index, const StringCache& strings,
                           LaunchConfigCache& configs);
  Status InsertApiCalls(const std::vector<ApiCallRecord>& calls, RunId run, const StringCache& strings);
  Status InsertHostActivity(const ActivityBuffer& b, RunId run, const StringCache& strings);

  KernelBatch* kernel_batch_ = nullptr;  // owned by the connection's module registration
  Statement kernels_from_batch_;         // INSERT INTO kernels ... SELECT
  TableInsert kernel_;                   // row by row, to name the record at fault after an error
  Statement time_block_;                 // upsert of one kernel_time_blocks row
  Statement max_kernel_id_;              // the kernel table's largest id, -1 when empty
  std::vector<int64_t> launch_config_ids_;  // of the batch being inserted
  TableInsert memcpy_;
  TableInsert memset_;
  TableInsert sync_;
  TableInsert graph_launch_;
  ApiCallBatch* api_batch_ = nullptr;    // owned by the connection's module registration
  Statement api_calls_from_batch_;       // INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME ... SELECT
  TableInsert api_call_;                 // row by row, to name the record at fault after an error
  TableInsert range_;
  TableInsert external_correlation_;
  TableInsert overhead_;
};

}  // namespace nimble::store
