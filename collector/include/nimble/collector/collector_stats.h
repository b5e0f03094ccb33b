// What a collection saw and what it could not keep, for the run database's stats table: every
// dropped, refused, unmatched or unknown record is counted here, so no loss is silent.
// Plain counters; the thread that owns the struct is the only one that writes it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nimble/core/run.h"

namespace nimble::collector {

struct CollectorStats {
  // Converted records by kind.
  int64_t kernels = 0;
  int64_t memcpys = 0;
  int64_t memsets = 0;
  int64_t syncs = 0;
  int64_t runtime_calls = 0;
  int64_t driver_calls = 0;
  int64_t nvtx_ranges = 0;
  int64_t external_correlations = 0;
  int64_t overheads = 0;
  int64_t graph_launches = 0;  // graph-level records (--graph-trace graph)
  // Records seen but not kept.
  int64_t unknown_kind_records = 0;   // a kind the converters do not handle
  int64_t incomplete_records = 0;     // zero or reversed timestamps (GPU work never finished)
  int64_t unmatched_marker_ends = 0;  // an NVTX end whose start was not captured
  int64_t unmatched_marker_starts = 0;  // an NVTX start never ended before the session stopped
  int64_t other_markers = 0;          // NVTX sync markers and other flags
  int64_t buffer_errors = 0;          // a CUPTI buffer that could not be parsed to its end
  int64_t records_lost_in_sink = 0;   // converted but not stored (the sink failed)
  // Buffers.
  int64_t buffers_completed = 0;
  int64_t buffers_refused = 0;        // CUPTI asked while the cap was reached: its records are dropped
  int64_t buffer_bytes_delivered = 0;
  int64_t peak_buffers_outstanding = 0;
  int64_t cupti_dropped_records = 0;  // cuptiActivityGetNumDroppedRecords
  // Iterations: completed NVTX ranges named like the iteration range.
  int64_t iterations = 0;
  std::string iteration_range;

  // Every record that was produced by CUPTI but is not in the database.
  int64_t dropped_total() const { return cupti_dropped_records + records_lost_in_sink; }

  // One stat per counter (zeros included, so that "nothing dropped" is stated, not implied).
  std::vector<StatEntry> ToEntries() const;
};

}  // namespace nimble::collector
