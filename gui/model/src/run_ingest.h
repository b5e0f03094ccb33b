// Private to the loader: reading a run's tables into lanes. The small tables (copies, sets, syncs, API
// calls, ranges) also fill a kernel-less Trace that the gap classifier and the iteration detector need;
// kernels are read by several threads, each over a share of the kernel index. Times become relative
// to RunTimeline::base_ns as they are read. Called on the loading thread.
#pragma once

#include <atomic>
#include <optional>
#include <vector>

#include "nimble/core/trace.h"
#include "nimble/gui/iteration_detector.h"
#include "nimble/gui/lane_set.h"
#include "nimble/gui/run_loader.h"
#include "nimble/store/timeline_reader.h"

namespace nimble::gui {

struct HostTables {
  Trace classifier_trace;         // syncs and copies with relative times (API calls are added per gap)
  std::vector<TextRange> ranges;  // NVTX ranges, relative
};

// Reads copies, sets, syncs, API calls and ranges. `base_ns` is set from the first row when empty.
Status ReadHostTables(const store::TimelineReader& reader, RunId run, std::optional<int64_t>& base_ns,
                      const std::atomic<bool>* cancel, RunTimeline& timeline, LaneSet& lanes, HostTables& out);

// Reads kernels [0, kernel_end) into `lanes` (and their correlation ids when `with_correlation`),
// reporting progress from `progress_from` to `progress_to` of the whole load. The calling thread reads
// the first share through `reader`; each other share's thread opens its own reader of the same file.
Status ReadKernels(const store::TimelineReader& reader, RunId run, int64_t kernel_end, int64_t base_ns, bool with_correlation,
                   const LoadOptions& options, double progress_from, double progress_to, LaneSet& lanes,
                   RunTimeline& timeline);

}  // namespace nimble::gui
