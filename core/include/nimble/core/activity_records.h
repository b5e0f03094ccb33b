// The activity records of a trace or of a batch of one, one vector per kind. A Trace adds its strings
// and devices; the collector hands batches of these from converter to sink, and the store buffers them
// between flushes. A value; one owner at a time.
#pragma once

#include <cstddef>
#include <vector>

#include "nimble/core/activity.h"

namespace nimble {

struct ActivityRecords {
  std::vector<KernelRecord> kernels;
  std::vector<MemcpyRecord> memcpys;
  std::vector<MemsetRecord> memsets;
  std::vector<SyncRecord> syncs;
  std::vector<ApiCallRecord> api_calls;
  std::vector<NvtxRange> ranges;
  std::vector<ExternalCorrelation> external_correlations;
  std::vector<OverheadRecord> overheads;
  std::vector<GraphLaunchRecord> graph_launches;

  // Records of every kind together.
  size_t size() const {
    return kernels.size() + memcpys.size() + memsets.size() + syncs.size() + api_calls.size() + ranges.size() +
           external_correlations.size() + overheads.size() + graph_launches.size();
  }
  bool empty() const { return size() == 0; }
  // Empties every vector and keeps its capacity, so a batch can be refilled without allocating.
  void clear() {
    kernels.clear();
    memcpys.clear();
    memsets.clear();
    syncs.clear();
    api_calls.clear();
    ranges.clear();
    external_correlations.clear();
    overheads.clear();
    graph_launches.clear();
  }
};

}  // namespace nimble
