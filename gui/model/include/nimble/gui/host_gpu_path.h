// The critical path through host and GPU of a run without an op graph, for the viewer: computed by
// analysis::TraceCriticalPathFinder over a Trace rebuilt from the timeline's own rows (each record at the
// index of its item's ItemRef, times relative to the timeline's base) and the run's sync records, then
// drawn as the lanes' critical-path band. Built on the loading thread; read-only afterwards.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "nimble/analysis/trace_critical_path.h"
#include "nimble/core/status.h"
#include "nimble/core/trace.h"
#include "nimble/gui/loaded_run.h"

namespace nimble::gui {

// The path needs every record as a full Trace record (about 100 bytes each, for the time of the
// computation): past this many the viewer leaves the path to `nimble-prof report`, which reads the
// trace whole anyway, and stays within its memory budget (bench/results/gui_timeline.md).
inline constexpr size_t kMaxHostGpuPathRecords = 2'000'000;

// The timeline's kernels, copies, sets, graph launches and API calls as a Trace (their ItemRef index is
// their index there, their label their name), with `syncs` (relative times) added.
Trace TraceOfTimeline(const RunTimeline& timeline, std::span<const SyncRecord> syncs);

// The path of every device in `devices` over every iteration window of the timeline (over the device's
// activity span without iterations), drawn into the lanes' critical rows: GPU work and the waits
// before it on its stream lane, API calls, the CPU time between them and sync wake-ups on the thread's
// API lane. Returns the first device's path over the median iteration (else its span) for the tables.
// FailedPrecondition, naming the counts, past kMaxHostGpuPathRecords; NotFound without GPU activity.
StatusOr<HostGpuPathView> AnalyzeHostGpuPath(std::span<const SyncRecord> syncs,
                                             std::span<const DeviceIdleSummary> devices, RunTimeline& timeline);

// The item a segment of `device`'s path names (the API call, the GPU work, or the work or call a wait
// or CPU time precedes): lane -1 when the timeline has no such item.
RunTimeline::Location LocateSegment(const RunTimeline& timeline, DeviceId device, const analysis::PathSegment& segment);

}  // namespace nimble::gui
