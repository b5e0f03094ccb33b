#include "batch_tables.h"

#include "batch_table.h"
#include "nimble/store/schema.h"

namespace nimble::store {

void KernelBatch::Column(size_t row, int col, sqlite3_context* ctx) const {
  const KernelRecord& k = records[row];
  switch (col) {
    case 0:
      if (!explicit_ids && row != 0) return sqlite3_result_null(ctx);
      return sqlite3_result_int64(ctx, KernelId(run, first_kernel_index + static_cast<int64_t>(row)));
    case 1: return sqlite3_result_int64(ctx, k.start_ns);
    case 2: return sqlite3_result_int64(ctx, k.end_ns);
    case 3: return ResultId(ctx, k.device);
    case 4: return ResultId(ctx, k.context);
    case 5: return ResultId(ctx, k.stream);
    case 6: return ResultId(ctx, k.correlation);
    case 7: return ResultString(ctx, k.name, *strings);
    case 8: return ResultString(ctx, k.short_name, *strings);
    case 9: return sqlite3_result_int64(ctx, launch_config_ids[row]);
    case 10: return sqlite3_result_int64(ctx, k.graph_node_id);
    case 11: return sqlite3_result_int64(ctx, k.graph_id);
    default: return sqlite3_result_error(ctx, "nimble_kernel_batch: no such column", -1);
  }
}

void ApiCallBatch::Column(size_t row, int col, sqlite3_context* ctx) const {
  const ApiCallRecord& a = records[row];
  switch (col) {
    case 0: return sqlite3_result_int64(ctx, run);
    case 1: return sqlite3_result_int64(ctx, a.start_ns);
    case 2: return sqlite3_result_int64(ctx, a.end_ns);
    case 3: return sqlite3_result_int64(ctx, static_cast<int64_t>(a.kind));
    case 4: return sqlite3_result_int64(ctx, a.process);
    case 5: return ResultId(ctx, a.thread);
    case 6: return ResultId(ctx, a.correlation);
    case 7: return ResultString(ctx, a.name, *strings);
    case 8: return sqlite3_result_int64(ctx, a.callback_id);
    case 9: return sqlite3_result_int64(ctx, a.return_value);
    default: return sqlite3_result_error(ctx, "nimble_api_batch: no such column", -1);
  }
}

StatusOr<KernelBatch*> RegisterKernelBatch(Database& db) {
  return RegisterBatchTable<KernelBatch>(db, "nimble_kernel_batch", kKernelColumns);
}

StatusOr<ApiCallBatch*> RegisterApiCallBatch(Database& db) {
  return RegisterBatchTable<ApiCallBatch>(db, "nimble_api_batch", kApiCallColumns);
}

}  // namespace nimble::store
