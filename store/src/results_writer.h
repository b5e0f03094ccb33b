// Writes the small per-run tables: the run row, devices, the op graph with its kernel attribution,
// the stream assignment, metrics, speedups and stats. Each Replace* function swaps one run's rows in
// one transaction of its own; these are written once per run, so statements are prepared per call.
// Single-threaded; every error starts with the database's path.
#pragma once

#include <span>

#include "nimble/core/activity.h"
#include "nimble/core/op_graph.h"
#include "nimble/core/run.h"
#include "nimble/core/schedule.h"
#include "nimble/core/string_table.h"
#include "sqlite_db.h"

namespace nimble::store {

// Inserts a run row and returns its new id (run.id is ignored).
StatusOr<RunId> InsertRun(Database& db, const RunInfo& run);
Status UpdateRunRow(Database& db, RunId id, const RunInfo& run);
// NotFound naming the path when run `id` is not in the database.
Status CheckRunExists(Database& db, RunId id);
// The kernel index the next kernel of run `id` gets: the number already written.
StatusOr<int64_t> NextKernelIndex(Database& db, RunId id);

Status InsertDevice(Database& db, RunId run, const DeviceInfo& device, const StringTable& strings);
Status ReplaceGraph(Database& db, RunId run, const OpGraph& graph, std::span<const KernelAttribution> attribution);
Status ReplaceAssignment(Database& db, RunId run, const StreamAssignment& assignment);
Status ReplaceMetrics(Database& db, RunId run, std::span<const Metric> metrics);
Status ReplaceSpeedups(Database& db, RunId run, std::span<const Speedup> speedups);
// Adds entry.value to the run's stat of that name, creating it if new.
Status AddStatValue(Database& db, RunId run, const StatEntry& entry);

}  // namespace nimble::store
