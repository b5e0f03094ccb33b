// The batches the writer shows SQLite through virtual tables (batch_table.h), so that a flush inserts
// each of the two largest tables with one INSERT ... SELECT instead of binding every value of every
// row (bench/results/store_writer.md): nimble_kernel_batch for `kernels`, nimble_api_batch for
// CUPTI_ACTIVITY_KIND_RUNTIME. They exist only on the writer's connection, never in the file.
// Single-threaded, like the connection they are registered on.
#pragma once

#include <sqlite3.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "nimble/core/activity.h"
#include "sqlite_db.h"
#include "string_cache.h"

namespace nimble::store {

// The columns of the table `kernels` (schema version 4), in the order the row-by-row statement binds
// them and the virtual table nimble_kernel_batch returns them.
constexpr std::initializer_list<const char*> kKernelColumns = {
    "id", "start", "end", "deviceId", "contextId", "streamId", "correlationId", "demangledName", "shortName",
    "launchConfigId", "graphNodeId", "graphId"};

// The kernel records that nimble_kernel_batch shows while one INSERT ... SELECT runs; empty otherwise.
struct KernelBatch {
  const KernelRecord* records = nullptr;
  size_t count = 0;
  int64_t run = 0;
  int64_t first_kernel_index = 0;
  const StringCache* strings = nullptr;
  const int64_t* launch_config_ids = nullptr;  // kernel_launch_configs.id of each record
  // false: only the first row gets its id, (run << 32) + first_kernel_index; the others get NULL,
  // for which SQLite assigns the table's largest rowid + 1 without searching the key, which is the
  // same id when no row of the table has a larger one (the caller checks). true: every row its id.
  bool explicit_ids = true;

  void Column(size_t row, int col, sqlite3_context* ctx) const;
};

// The columns of CUPTI_ACTIVITY_KIND_RUNTIME that the writer fills, in the order of the row-by-row
// statement and of nimble_api_batch.
constexpr std::initializer_list<const char*> kApiCallColumns = {
    "runId", "start", "end", "apiKind", "processId", "threadId", "correlationId", "nameId", "callbackId",
    "returnValue"};

// The API call records that nimble_api_batch shows while one INSERT ... SELECT runs; empty otherwise.
struct ApiCallBatch {
  const ApiCallRecord* records = nullptr;
  size_t count = 0;
  int64_t run = 0;
  const StringCache* strings = nullptr;

  void Column(size_t row, int col, sqlite3_context* ctx) const;
};

// Register the virtual tables on `db` and return their batches, which the connection owns.
StatusOr<KernelBatch*> RegisterKernelBatch(Database& db);
StatusOr<ApiCallBatch*> RegisterApiCallBatch(Database& db);

}  // namespace nimble::store
