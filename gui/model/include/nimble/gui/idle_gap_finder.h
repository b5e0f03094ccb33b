// Idle gaps of one device from the timeline's own compact rows rather than full records: its kernels,
// sets, device-side copies and graph launches merged across streams in start order, in O(n x streams)
// time and no copy of the items, and swept by analysis::ActivitySweep, as TimelineAnalyzer sweeps them
// (so the same gaps, order and causes on the activity span). Finding and classifying are separate so
// that the classifier indexes only the launch calls of the gaps' next work. Pure functions.
#pragma once

#include <vector>

#include "nimble/analysis/activity_sweep.h"
#include "nimble/analysis/idle_gaps.h"
#include "nimble/gui/run_timeline.h"

namespace nimble::gui {

struct DeviceGaps {
  DeviceId device;
  // Over the device's activity span; times relative to the timeline's base. The rows do not say which
  // kernels a graph replayed, so next_from_graph is false.
  analysis::ActivityUnion activity;
};

// The gaps, each with cause kOther until analysis::ClassifyGaps sets it with a classifier over records
// relative to the timeline's base (holding at least the API calls whose correlation ids end the gaps).
// Copies that involve host memory are not activity.
DeviceGaps FindDeviceGaps(const RunTimeline& timeline, DeviceId device);

// The API calls of `timeline` whose correlation ids end a gap of `devices` (times relative), for a
// classifier that indexes only what it will be asked about.
std::vector<ApiCallRecord> LaunchCallsOfGaps(const RunTimeline& timeline, const std::vector<DeviceGaps>& devices);

}  // namespace nimble::gui
