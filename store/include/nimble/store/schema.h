// The run database's schema version and migrations, exposed for tools and tests.
// Version lives in PRAGMA user_version; migration N brings a database from N-1 to N in one transaction.
#pragma once

#include <cstdint>
#include <string>

#include "nimble/core/status.h"

namespace nimble::store {

inline constexpr int kSchemaVersion = 6;

// The kernel table's key (version 3; from version 4 the table `kernels`, shown with every column as the
// view CUPTI_ACTIVITY_KIND_KERNEL): id = (runId << kKernelIdRunShift) + kernelIndex, so that a run's
// kernels are one range of the rowid, in kernelIndex order, and a run holds at most 2^32 kernels.
inline constexpr int kKernelIdRunShift = 32;
inline constexpr int64_t kMaxKernelsPerRun = int64_t{1} << kKernelIdRunShift;
inline constexpr int64_t KernelId(int64_t run, int64_t kernel_index) {
  return (run << kKernelIdRunShift) + kernel_index;
}

// Kernels per row of kernel_time_blocks (version 3): the block of kernel k of a run is
// k / kKernelsPerTimeBlock, and its row holds the earliest start and the latest end in it.
inline constexpr int64_t kKernelsPerTimeBlock = 1024;

// The kernels of run ?1 that overlap the time window [?2, ?3] (ns), in kernelIndex order: the blocks
// that overlap the window by their primary key, then their kernels by rowid ranges. CROSS JOIN
// makes SQLite keep that order (left to right) instead of starting from all of the run's kernels.
inline constexpr const char* kKernelsInTimeWindowSql =
    "SELECT k.* FROM kernel_time_blocks b CROSS JOIN CUPTI_ACTIVITY_KIND_KERNEL k "
    "ON k.id BETWEEN (b.runId << 32) + b.firstKernelIndex AND (b.runId << 32) + b.lastKernelIndex "
    "WHERE b.runId = ?1 AND b.minStart <= ?3 AND b.maxEnd >= ?2 AND k.start <= ?3 AND k.end >= ?2 "
    "ORDER BY k.id";

// Creates `path` at exactly `version` (1..kSchemaVersion) with no runs: lets tests build older files.
Status CreateDatabaseAtVersion(const std::string& path, int version);

// Upgrades `path` to kSchemaVersion in place (no-op when current). Error for newer or foreign files.
Status UpgradeDatabase(const std::string& path);

// Writes content digests (docs/schema.md, "Integrity") for the runs of `path` that have none (runs
// written before schema 6), after checking the file: their current content becomes the reference.
// Returns how many runs it sealed. The file must be at kSchemaVersion.
StatusOr<int> SealUnsealedRuns(const std::string& path);

// The schema version of an existing run database, from its header, without opening it in SQLite.
StatusOr<int> FileSchemaVersion(const std::string& path);

}  // namespace nimble::store
