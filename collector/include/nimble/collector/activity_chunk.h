// A batch of converted activity records, handed from the converter to a RecordSink.
// StringIds in the records refer to the converter's StringTable, passed alongside.
// A value; owned by one thread at a time (the pipeline's).
#pragma once

#include <cstddef>
#include <vector>

#include "nimble/core/activity.h"

namespace nimble::collector {

struct ActivityChunk {
  std::vector<KernelRecord> kernels;
  std::vector<MemcpyRecord> memcpys;
  std::vector<MemsetRecord> memsets;
  std::vector<SyncRecord> syncs;
  std::vector<ApiCallRecord> api_calls;
  std::vector<NvtxRange> ranges;
  std::vector<ExternalCorrelation> external_correlations;
  std::vector<OverheadRecord> overheads;

  size_t size() const {
    return kernels.size() + memcpys.size() + memsets.size() + syncs.size() + api_calls.size() + ranges.size() +
           external_correlations.size() + overheads.size();
  }
  bool empty() const { return size() == 0; }
  // Keeps the capacity: the pipeline reuses one chunk for every buffer.
  void clear() {
    kernels.clear();
    memcpys.clear();
    memsets.clear();
    syncs.clear();
    api_calls.clear();
    ranges.clear();
    external_correlations.clear();
    overheads.clear();
  }
};

}  // namespace nimble::collector
