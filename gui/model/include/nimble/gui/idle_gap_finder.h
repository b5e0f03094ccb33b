// Idle gaps of one device, computed from the timeline's own compact rows rather than from full records:
// the holes in the union of its kernels, sets and device-side copies over its activity span, then
// classified by analysis::GapClassifier. Same gaps, order and causes as analysis::TimelineAnalyzer on
// the activity span (tested against it), in O(n x streams) time and no copy of the items. Finding and
// classifying are separate so that the classifier need only index the launch calls of the gaps' next
// work, not every API call of the run. Pure functions of their inputs.
#pragma once

#include <vector>

#include "nimble/analysis/idle_gaps.h"
#include "nimble/gui/run_timeline.h"

namespace nimble::gui {

struct DeviceGaps {
  DeviceId device;
  int64_t span_start_ns = 0;  // first activity, relative to the timeline's base
  int64_t span_end_ns = 0;    // last activity end
  int64_t active_ns = 0;      // length of the union of its activity
  std::vector<analysis::IdleGap> gaps;  // in time order; start_ns relative to the timeline's base
  bool empty() const { return span_end_ns <= span_start_ns; }
};

// The gaps, each with cause kOther until classified. Copies that involve host memory are not activity.
DeviceGaps FindDeviceGaps(const RunTimeline& timeline, DeviceId device);

// Sets each gap's cause. `classifier` must be built over records whose times are relative to the
// timeline's base, holding at least the API calls whose correlation ids end the gaps.
void ClassifyGaps(const analysis::GapClassifier& classifier, DeviceGaps& gaps);

// The API calls of `timeline` whose correlation ids end a gap of `devices` (times relative), for a
// classifier that indexes only what it will be asked about.
std::vector<ApiCallRecord> LaunchCallsOfGaps(const RunTimeline& timeline, const std::vector<DeviceGaps>& devices);

}  // namespace nimble::gui
