// The activity records a RunWriter buffers between flushes, and the prepared INSERT statements that
// write a buffer into the activity tables: bound by column index, reused for every row, and each
// inserting kRowsPerStatement rows at once (which halves SQLite's per-row statement overhead).
// Single-threaded; the statements belong to one connection and must die before it closes.
#pragma once

#include <cstdint>
#include <vector>

#include "nimble/core/activity.h"
#include "sqlite_db.h"
#include "string_cache.h"

namespace nimble::store {

struct ActivityBuffer {
  std::vector<KernelRecord> kernels;
  std::vector<MemcpyRecord> memcpys;
  std::vector<MemsetRecord> memsets;
  std::vector<SyncRecord> syncs;
  std::vector<ApiCallRecord> api_calls;
  std::vector<NvtxRange> ranges;
  std::vector<ExternalCorrelation> external_correlations;
  std::vector<OverheadRecord> overheads;

  int64_t size() const;
  void clear();
};

// One activity table's INSERT statement, prepared for one row and for kRowsPerStatement rows.
struct TableInsert {
  static constexpr int kRowsPerStatement = 32;

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
  // have been noted in, and resolved by, `strings`. An error names the table and the record.
  Status Insert(const ActivityBuffer& buffer, RunId run, int64_t first_kernel_index, const StringCache& strings);

 private:
  ActivityInserter() = default;
  Status InsertGpuActivity(const ActivityBuffer& b, RunId run, int64_t first_kernel_index, const StringCache& strings);
  Status InsertHostActivity(const ActivityBuffer& b, RunId run, const StringCache& strings);

  TableInsert kernel_;
  TableInsert memcpy_;
  TableInsert memset_;
  TableInsert sync_;
  TableInsert api_call_;
  TableInsert range_;
  TableInsert external_correlation_;
  TableInsert overhead_;
};

}  // namespace nimble::store
