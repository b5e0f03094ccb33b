// nimble_kernel_batch: a read-only virtual table that shows SQLite a batch of buffered kernel records,
// so the writer inserts a whole batch with one INSERT ... SELECT instead of binding 12 parameters per
// row (bench/results/store_writer.md). It exists only on the writer's connection, never in the file.
// Single-threaded, like the connection it is registered on.
#pragma once

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

// The kernel records that the virtual table nimble_kernel_batch shows while one INSERT ... SELECT
// runs; empty otherwise. Owned by the connection (freed when it closes).
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
};

// Registers nimble_kernel_batch on `db` and returns its batch, which the connection owns.
StatusOr<KernelBatch*> RegisterKernelBatch(Database& db);

}  // namespace nimble::store
