// Converts CUPTI activity records, one at a time or a whole completed buffer, into an ActivityChunk:
// dispatches by kind to the pure conversions, pairs NVTX markers, interns names, and counts every
// record it cannot keep (unknown kind, no timestamps, unmatched marker) into CollectorStats.
// Not thread-safe: one converter per pipeline thread; its StringTable only grows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "nimble/collector/activity_chunk.h"
#include "nimble/collector/collector_stats.h"
#include "nimble/collector/cupti_records.h"
#include "nimble/collector/kernel_names.h"
#include "nimble/collector/marker_pairer.h"
#include "nimble/core/string_table.h"

namespace nimble::collector {

struct ConverterOptions {
  std::string iteration_range;  // NVTX range name that delimits iterations; empty: none
};

class RecordConverter {
 public:
  explicit RecordConverter(ConverterOptions options = {});

  // Converts one record into `out` (a START marker only opens a range; its END emits it).
  void Convert(const ActivityRecord& record, ActivityChunk& out);
  // Converts every record in the first `valid_bytes` of a buffer CUPTI completed; returns the
  // number of records read. A buffer that ends in an unreadable record is counted in buffer_errors.
  int64_t ConvertBuffer(uint8_t* buffer, size_t valid_bytes, ActivityChunk& out);
  // End of session: NVTX starts still open are counted as unmatched.
  void Finish();

  const StringTable& strings() const { return strings_; }
  StringTable& mutable_strings() { return strings_; }
  const CollectorStats& stats() const { return stats_; }
  CollectorStats& mutable_stats() { return stats_; }

 private:
  void ConvertKernel(const KernelRecordV& in, ActivityChunk& out);
  void ConvertApi(const ApiRecordV& in, ApiKind kind, ActivityChunk& out);
  void ConvertMarker(const MarkerRecordV& in, ActivityChunk& out);
  void EmitRange(const NvtxRange& range, ActivityChunk& out);
  StringId ApiName(ApiKind kind, uint32_t cbid);

  ConverterOptions options_;
  StringTable strings_;
  KernelNameCache kernel_names_{strings_};
  MarkerPairer markers_;
  CollectorStats stats_;
  StringId iteration_text_;
  std::vector<StringId> runtime_names_;  // by callback id; invalid where not yet looked up
  std::vector<StringId> driver_names_;
};

}  // namespace nimble::collector
