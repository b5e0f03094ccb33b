// One run as the timeline shows it: lanes of GPU streams (kernels, copies, sets), a per-device lane of
// idle gaps, and host lanes of NVTX ranges and API calls, each split into rows of disjoint items.
// Times are relative to base_ns (the run's first timestamp), so they stay small and exact in doubles.
// Built by the loader, then read-only and shared between threads.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "nimble/core/ids.h"
#include "nimble/core/string_table.h"
#include "nimble/gui/row_items.h"

namespace nimble::gui {

// Lanes appear in this order within a device (idle, then streams) and a thread (ranges, then API).
enum class LaneKind : int32_t { kDeviceIdle = 0, kStream = 1, kHostRanges = 2, kHostApi = 3 };

struct Lane {
  LaneKind kind = LaneKind::kStream;
  DeviceId device;   // GPU lanes
  StreamId stream;   // stream lanes
  ThreadId thread;   // host lanes
  // Items in rows of disjoint items: NVTX nesting depth, API calls inside API calls, and kernels of one
  // stream that overlap (graph replays) each take the next row.
  std::vector<RowItems> rows;
  // Stream lanes of a run with an op graph: per row, the items of ops on the critical path.
  std::vector<RowItems> critical;

  std::string Title() const;
  size_t item_count() const;
};

struct CopyInfo {
  int64_t bytes = 0;
  int64_t correlation = -1;
  int32_t kind = 0;  // CopyKind of a copy, MemoryKind of a set
};

struct GraphLaunchInfo {
  int64_t graph_id = 0;
  int64_t correlation = -1;
};

struct RunTimeline {
  int64_t base_ns = 0;                     // absolute time of relative 0
  int64_t start_ns = 0;                    // first activity, relative
  int64_t end_ns = 0;                      // last activity end, relative
  StringTable strings;                     // labels of kernels, API calls and ranges (see ItemRef)
  std::vector<Lane> lanes;                 // in display order
  std::vector<std::pair<int64_t, int64_t>> iterations;  // detected iteration windows, relative, by start
  std::string iteration_text;              // the NVTX text that marks them ("" when none)

  int64_t kernel_count = 0;
  std::vector<CopyInfo> memcpys;           // by memcpy index (ItemRef kMemcpy)
  std::vector<CopyInfo> memsets;           // by memset index
  std::vector<GraphLaunchInfo> graph_launches;  // by graph launch index (ItemRef kGraphLaunch)
  std::vector<int64_t> api_correlation;    // by API call index
  std::vector<int64_t> kernel_correlation; // by kernel index; empty when the run has no API calls
  std::vector<int32_t> kernel_op;          // by kernel index: OpId value or -1; empty without an op graph

  // The lane index of a GPU stream or idle lane, or of a host lane; -1 when absent.
  int32_t FindLane(LaneKind kind, DeviceId device, StreamId stream, ThreadId thread) const;
  // Location of the item with `ref` (a linear scan of the lanes that can hold it); lane -1 when absent.
  struct Location {
    int32_t lane = -1;
    int32_t row = -1;
    int64_t item = -1;
  };
  Location Find(ItemRef ref) const;
  // Location of the API call whose correlation id is `correlation`, else lane -1.
  Location FindApiCall(int64_t correlation) const;
  // Location of the first kernel whose correlation id is `correlation`, else lane -1.
  Location FindKernelByCorrelation(int64_t correlation) const;
  size_t bytes() const;
};

}  // namespace nimble::gui
