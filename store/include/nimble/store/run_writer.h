// Writes one run into a run database: activity records in batches (one transaction per batch,
// prepared statements), then the model graph, stream assignment and results.
// A new file is built at "<path>.partial" and renamed into place by Commit(); without Commit() it is
// removed, so a failed session leaves no half-written database. Appending a run to an existing
// database writes in place; an uncommitted batch is rolled back. Not thread-safe: one writer thread.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "nimble/core/activity.h"
#include "nimble/core/op_graph.h"
#include "nimble/core/run.h"
#include "nimble/core/schedule.h"
#include "nimble/core/status.h"
#include "nimble/core/string_table.h"
#include "nimble/core/trace.h"

namespace nimble::store {

struct WriterOptions {
  int64_t batch_records = 1 << 16;  // buffered records that trigger a flush
};

class RunWriter {
 public:
  // Starts a new run in `path` (created if missing, migrated if older). Fills run.id.
  static StatusOr<std::unique_ptr<RunWriter>> Create(const std::string& path, RunInfo run,
                                                     WriterOptions options = {});
  // Opens an existing run for adding results (graph, assignment, metrics, speedups, stats).
  static StatusOr<std::unique_ptr<RunWriter>> OpenRun(const std::string& path, RunId run,
                                                      WriterOptions options = {});
  ~RunWriter();

  RunId run_id() const;
  const std::string& path() const;

  // Records whose StringIds refer to `strings`: the caller's table, which may only grow between calls.
  Status AppendKernels(std::span<const KernelRecord> records, const StringTable& strings);
  Status AppendMemcpys(std::span<const MemcpyRecord> records);
  Status AppendMemsets(std::span<const MemsetRecord> records);
  Status AppendSyncs(std::span<const SyncRecord> records);
  Status AppendApiCalls(std::span<const ApiCallRecord> records, const StringTable& strings);
  Status AppendRanges(std::span<const NvtxRange> records, const StringTable& strings);
  Status AppendExternalCorrelations(std::span<const ExternalCorrelation> records);
  Status AppendOverheads(std::span<const OverheadRecord> records, const StringTable& strings);
  Status AppendGraphLaunches(std::span<const GraphLaunchRecord> records);
  Status AddDevice(const DeviceInfo& device, const StringTable& strings);
  // All of the above for a whole trace.
  Status AppendTrace(const Trace& trace);

  // Replace this run's graph / assignment / metrics / speedups (each in one transaction).
  Status WriteGraph(const OpGraph& graph, std::span<const KernelAttribution> attribution);
  Status WriteAssignment(const StreamAssignment& assignment);
  Status WriteMetrics(std::span<const Metric> metrics);
  Status WriteSpeedups(std::span<const Speedup> speedups);
  // Adds `entry.value` to the stat of that name (created if new); its severity replaces the stored
  // one, and an empty description keeps the stored one.
  Status AddStat(const StatEntry& entry);
  // Updates the stored run row (e.g. iterations known only at the end).
  Status UpdateRun(const RunInfo& run);

  // Writes buffered records as one transaction. If it fails, that batch is rolled back and its
  // records dropped; earlier batches stay and the writer remains usable.
  Status Flush();
  // Flushes, builds indexes, checkpoints the WAL and moves a new file into place.
  // The file is then closed, with no -wal/-shm beside it; a later call reopens it in place.
  Status Commit();

  // Records written so far in this run (flushed), for progress and tests.
  int64_t records_written() const;

  class Impl;

 private:
  explicit RunWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace nimble::store
