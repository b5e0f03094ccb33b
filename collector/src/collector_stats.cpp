#include "nimble/collector/collector_stats.h"

namespace nimble::collector {
namespace {

StatEntry Info(std::string name, int64_t value, std::string description) {
  return StatEntry{std::move(name), value, Severity::kInfo, std::move(description)};
}

// A loss is an error when it happened, and stated as an info zero when it did not.
StatEntry Loss(std::string name, int64_t value, Severity severity, std::string description) {
  return StatEntry{std::move(name), value, value == 0 ? Severity::kInfo : severity, std::move(description)};
}

}  // namespace

std::vector<StatEntry> CollectorStats::ToEntries() const {
  std::vector<StatEntry> out = {
      Info("collector.records.kernel", kernels, "kernel records stored"),
      Info("collector.records.memcpy", memcpys, "memcpy records stored"),
      Info("collector.records.memset", memsets, "memset records stored"),
      Info("collector.records.sync", syncs, "synchronization records stored"),
      Info("collector.records.runtime_api", runtime_calls, "CUDA runtime API records stored"),
      Info("collector.records.driver_api", driver_calls, "CUDA driver API records stored"),
      Info("collector.records.nvtx_range", nvtx_ranges, "NVTX ranges stored (paired markers)"),
      Info("collector.records.external_correlation", external_correlations, "external correlation records stored"),
      Info("collector.records.overhead", overheads, "CUPTI overhead records stored"),
      Info("collector.records.graph_launch", graph_launches, "CUDA graph launches stored at graph level"),
      Loss("collector.dropped_records", cupti_dropped_records, Severity::kError,
           "records CUPTI dropped for lack of buffer space (cuptiActivityGetNumDroppedRecords)"),
      Loss("collector.buffers_refused", buffers_refused, Severity::kError,
           "buffer requests refused at the outstanding-buffer cap; their records are in dropped_records"),
      Loss("collector.records_lost_in_sink", records_lost_in_sink, Severity::kError,
           "converted records the run database could not take"),
      Loss("collector.buffer_errors", buffer_errors, Severity::kError,
           "CUPTI buffers that could not be read to their end"),
      Loss("collector.unknown_kind_records", unknown_kind_records, Severity::kWarning,
           "records of a CUPTI kind the converters do not handle"),
      Loss("collector.incomplete_records", incomplete_records, Severity::kWarning,
           "records without valid timestamps (GPU work unfinished when the session stopped)"),
      Loss("collector.unmatched_marker_ends", unmatched_marker_ends, Severity::kWarning,
           "NVTX range ends whose start was not captured"),
      Loss("collector.unmatched_marker_starts", unmatched_marker_starts, Severity::kWarning,
           "NVTX ranges still open when the session stopped"),
      Info("collector.other_markers", other_markers, "NVTX markers that are not ranges (sync markers)"),
      Info("collector.buffers_completed", buffers_completed, "CUPTI buffers delivered"),
      Info("collector.buffer_bytes", buffer_bytes_delivered, "bytes of CUPTI records delivered"),
      Info("collector.peak_buffers_outstanding", peak_buffers_outstanding, "most buffers held by CUPTI at once"),
  };
  if (!iteration_range.empty()) {
    out.push_back(Info("collector.iterations", iterations, "completed NVTX ranges named '" + iteration_range + "'"));
  }
  return out;
}

}  // namespace nimble::collector
