// Everything recorded in one run: activity records with their interned strings.
// A Trace is a value: build it single-threaded, then share it read-only.
#pragma once

#include <vector>

#include "nimble/core/activity.h"
#include "nimble/core/string_table.h"

namespace nimble {

struct Trace {
  StringTable strings;
  std::vector<DeviceInfo> devices;
  std::vector<KernelRecord> kernels;
  std::vector<MemcpyRecord> memcpys;
  std::vector<MemsetRecord> memsets;
  std::vector<SyncRecord> syncs;
  std::vector<ApiCallRecord> api_calls;
  std::vector<NvtxRange> ranges;
  std::vector<ExternalCorrelation> external_correlations;
  std::vector<OverheadRecord> overheads;
};

}  // namespace nimble
