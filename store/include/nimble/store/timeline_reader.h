// Streams one run's activity as compact rows, in batches, for viewers: only the columns a timeline
// draws, so that reading 10 million kernels never holds full records. Every string id in a row indexes
// strings(), which holds every string of the file, numbered in the file's order (so two readers of one
// file agree on ids and may read ranges of one run in parallel). One reader per thread; sinks run on it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "nimble/core/activity.h"
#include "nimble/core/ids.h"
#include "nimble/core/status.h"
#include "nimble/core/string_table.h"

namespace nimble::store {

// Which activity table a row comes from; `detail` and `bytes` mean different things per table.
// kGraphLaunches: CUDA graphs recorded at graph level, one row per launch of a whole graph.
enum class TimelineTable : int32_t { kKernels, kMemcpys, kMemsets, kSyncs, kApiCalls, kRanges, kGraphLaunches };

struct TimelineRow {
  int64_t index = 0;      // kernelIndex for kernels; position in the run's table (write order) otherwise
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  DeviceId device;        // GPU tables; invalid for API calls and ranges
  StreamId stream;        // GPU tables; invalid for context-wide syncs
  ThreadId thread;        // API calls and ranges
  CorrelationId correlation;
  StringId name;          // kernel short name, API function, NVTX text; invalid for copies, sets, syncs
  int64_t bytes = 0;      // copies and sets; the graph id for graph launches
  int32_t detail = 0;     // CopyKind, MemoryKind (sets), SyncKind or ApiKind, as an integer
};

using TimelineSink = std::function<Status(std::span<const TimelineRow>)>;

class TimelineReader {
 public:
  // Opens `path` like RunReader::Open (same checks and messages) and reads its string table.
  static StatusOr<std::unique_ptr<TimelineReader>> Open(const std::string& path);
  ~TimelineReader();

  const std::string& path() const;
  const StringTable& strings() const;

  // One more than the largest kernelIndex of `run` (0 without kernels): the kernel count of a run
  // written by RunWriter, found without scanning.
  StatusOr<int64_t> KernelIndexEnd(RunId run) const;
  // Row count of `table` for `run` (a scan of the run's index entries; cheap for the small tables).
  StatusOr<int64_t> CountRows(RunId run, TimelineTable table) const;

  // Kernels with kernelIndex in [first_index, end_index), in kernelIndex order, `batch_rows` at a time.
  // Without `with_correlation` their correlation ids are left invalid, which reads faster.
  Status ReadKernels(RunId run, int64_t first_index, int64_t end_index, bool with_correlation,
                     const TimelineSink& sink, int64_t batch_rows = 2048) const;
  // Every row of one of the other tables, in write order.
  Status ReadTable(RunId run, TimelineTable table, const TimelineSink& sink, int64_t batch_rows = 2048) const;

  // The full record of one kernel (for a details view), NotFound when the run has no such kernel.
  // Its StringIds index strings().
  StatusOr<KernelRecord> LoadKernel(RunId run, KernelIndex kernel) const;

  class Impl;

 private:
  explicit TimelineReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace nimble::store
