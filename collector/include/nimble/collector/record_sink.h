// Where converted activity goes: a sink receives chunks as buffers complete and a summary (stats,
// devices) when the session stops. Implementations: StoreSink (run database), TraceSink (memory).
// Threading rule: all calls come from one thread (the pipeline's), in order, Finish last.
#pragma once

#include <cstdint>
#include <vector>

#include "nimble/collector/activity_chunk.h"
#include "nimble/core/activity.h"
#include "nimble/core/run.h"
#include "nimble/core/status.h"
#include "nimble/core/string_table.h"

namespace nimble::collector {

// What the session knows only at its end. Device names are interned in the table passed to Finish.
struct SessionSummary {
  std::vector<StatEntry> stats;
  std::vector<DeviceInfo> devices;
  int32_t iterations = 0;
};

class RecordSink {
 public:
  virtual ~RecordSink() = default;
  // `strings` holds every StringId used by `chunk`; it only grows between calls.
  virtual Status Consume(const ActivityChunk& chunk, const StringTable& strings) = 0;
  // The session ended; a sink that persists commits here.
  virtual Status Finish(const SessionSummary& summary, const StringTable& strings) = 0;
};

}  // namespace nimble::collector
