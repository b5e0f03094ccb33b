// Timeline metrics of one device in a time window: active time, idle gaps with causes, per-stream busy
// time, overlap and active ratio. Activity is kernels, memsets, device-side copies and graph launches
// recorded at graph level (each one span), clipped to the window.
// A TimelineAnalyzer indexes one device once; Compute() is const and may be called from several threads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nimble/analysis/idle_gaps.h"
#include "nimble/analysis/time_window.h"
#include "nimble/core/trace.h"

namespace nimble::analysis {

struct StreamBusy {
  StreamId stream;
  int64_t busy_ns = 0;       // union of the stream's activity in the window
  int64_t kernel_count = 0;
};

struct TimelineMetrics {
  DeviceId device;
  TimeWindow window;
  int64_t active_ns = 0;      // union of all activity
  int64_t idle_ns = 0;        // window length - active_ns; the sum of the gaps
  int64_t overlap_ns = 0;     // time with at least two kernels running
  double active_ratio = 0;    // active_ns / window length
  int64_t kernel_count = 0;
  int64_t graph_launch_count = 0;   // graphs recorded at graph level (their nodes are not in kernel_count)
  std::vector<StreamBusy> streams;  // ascending stream id
  std::vector<IdleGap> gaps;        // in time order, including one before the first and after the last activity
  GapTotals idle_by_cause;
};

// Copies to or from host memory are not GPU compute: they are not activity, they are a gap cause.
class TimelineAnalyzer {
 public:
  TimelineAnalyzer(const Trace& trace, DeviceId device);

  // From the first activity's start to the last one's end; empty when the device did nothing.
  std::optional<TimeWindow> ActivitySpan() const;
  TimelineMetrics Compute(TimeWindow window) const;

 private:
  struct Activity {
    int64_t start_ns;
    int64_t end_ns;
    StreamId stream;
    CorrelationId correlation;
    bool is_kernel;
    bool from_graph;
    bool is_graph_launch;  // a whole graph recorded at graph level
  };
  std::vector<Activity> Select(TimeWindow window) const;  // clipped to the window, by start

  DeviceId device_;
  GapClassifier classifier_;
  std::vector<Activity> activities_;  // by start
  int64_t max_dur_ns_ = 0;
  int64_t last_end_ns_ = 0;
};

// Device ids that have any kernel, memset, copy or graph launch, ascending.
std::vector<DeviceId> ActiveDevices(const Trace& trace);

// Windows of the NVTX ranges whose text is exactly `text` (e.g. one per iteration), by start time.
std::vector<TimeWindow> WindowsFromNvtx(const Trace& trace, std::string_view text);

// The NVTX range text that marks iterations when the user names none: "ProfilerStep" (torch.profiler's
// step marker, as imported) when it occurs at least twice without overlap; else the text that repeats
// most often without overlapping itself (ties: the larger total time). Empty when no text occurs at
// least twice without overlap.
std::string DetectIterationRange(const Trace& trace);

}  // namespace nimble::analysis
