// What the Chrome export shows of one run, before any JSON: processes (GPU devices, host processes, the
// planned stream assignment) holding tracks of spans, each span pointing at the record or report result
// it draws. Built from the run's Trace and its RunReport; figures come from the report, never recomputed.
// Tracks are in display order; spans in any order (the layout sorts them). A value; one thread.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "nimble/analysis/idle_gaps.h"
#include "nimble/core/op_graph.h"
#include "nimble/core/status.h"
#include "nimble/core/trace.h"
#include "nimble/workflow/report.h"

namespace nimble::workflow {

// Where a span's data lives: the record vectors of the Trace, or the timeline's own result vectors.
enum class SpanSource : uint8_t {
  kKernel, kMemcpy, kMemset, kGraphLaunch, kSync,  // GPU records, by index in the Trace
  kApiCall, kRange,                                 // host records, by index in the Trace
  kGap,                                             // RunTimeline::gaps
  kCriticalOp, kAssignedOp,                         // RunTimeline::ops
  kSegment,                                         // RunTimeline::segments (host + GPU critical path)
};
inline constexpr size_t kNumSpanSources = 11;

struct TrackSpan {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  SpanSource source = SpanSource::kKernel;
  int64_t index = 0;
};

struct ChromeProcess {
  int64_t wanted_pid = -1;  // device ordinal or OS process id; -1: any free pid
  std::string name;
  bool gpu = false;         // a device: it gets its wanted pid before any other process of the run
};

struct ChromeTrack {
  size_t process = 0;       // index into RunTimeline::processes
  int64_t wanted_tid = -1;  // stream id or OS thread id; -1: any free tid of its process
  std::string name;
  std::vector<TrackSpan> spans;
};

// An idle gap of one device, as the report found it.
struct TimelineGap {
  DeviceId device;
  analysis::IdleGap gap;
};

// An op drawn at its measured kernels' times: from its first kernel's start to its last kernel's end in
// the iteration that weighed the ops.
struct PlacedOp {
  OpId op;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int64_t kernels = 0;
  int32_t path_position = -1;  // position on the critical path, -1 when not on it
  StreamId assigned;           // stream of the planned assignment, invalid when none
};

// A segment of a device's host + GPU critical path over the whole run, as the report found it:
// report.devices[device_report].run_path.segments[segment].
struct PathSegmentRef {
  size_t device_report = 0;
  size_t segment = 0;
};

// A dependency drawn as an arrow from one span of the timeline (source and index) to another, leaving
// and arriving at the instants given (each inside its span).
struct TimelineFlow {
  SpanSource from_source = SpanSource::kAssignedOp;
  int64_t from_index = 0;
  int64_t from_ns = 0;
  SpanSource to_source = SpanSource::kAssignedOp;
  int64_t to_index = 0;
  int64_t to_ns = 0;
};

struct RunTimeline {
  std::vector<ChromeProcess> processes;  // display order
  std::vector<ChromeTrack> tracks;       // display order within each process
  std::vector<TimelineGap> gaps;
  std::vector<PlacedOp> ops;
  std::vector<PathSegmentRef> segments;
  std::vector<DeviceId> sync_devices;    // by sync record: the device whose process shows it
  std::vector<TimelineFlow> flows;       // besides the launch → GPU work arrows, found when writing
};

// The whole timeline of a run: GPU tracks per device and stream, host tracks per thread, then the
// analysis tracks. `attribution` places the graph's ops; without it the op tracks stay empty.
// DataLoss, prefixed with `where`, for a record that ends before it starts.
StatusOr<RunTimeline> BuildRunTimeline(const Trace& trace, const RunReport& report,
                                       std::span<const KernelAttribution> attribution, const std::string& where);

// The parts BuildRunTimeline puts together (export_chrome_analysis.cpp). `devices` (ascending) and
// `device_process` (parallel) say which process shows each device; op tracks go to `graph_process`
// (the graph device's) and to a process of their own for the planned assignment.
void AddIdleGapTracks(const RunReport& report, std::span<const size_t> device_process,
                      std::span<const DeviceId> devices, RunTimeline& timeline);
// The host + GPU critical path of each device over the whole run, one track per device.
void AddTraceCriticalPathTracks(const RunReport& report, std::span<const size_t> device_process,
                                std::span<const DeviceId> devices, RunTimeline& timeline);
Status AddOpTracks(const Trace& trace, const RunReport& report, std::span<const KernelAttribution> attribution,
                   size_t graph_process, RunTimeline& timeline);

}  // namespace nimble::workflow
