#include "nimble/analysis/timeline.h"

#include <algorithm>
#include <map>
#include <utility>

#include "intervals.h"
#include "nimble/analysis/activity_sweep.h"

namespace nimble::analysis {

TimelineAnalyzer::TimelineAnalyzer(const Trace& trace, DeviceId device)
    : device_(device), classifier_(trace, device) {
  for (const KernelRecord& k : trace.kernels) {
    if (k.device == device) {
      activities_.push_back({k.start_ns, k.end_ns, k.stream, k.correlation, true, k.graph_node_id != 0, false});
    }
  }
  for (const MemsetRecord& m : trace.memsets) {
    if (m.device == device) activities_.push_back({m.start_ns, m.end_ns, m.stream, m.correlation, false, m.graph_node_id != 0, false});
  }
  for (const MemcpyRecord& c : trace.memcpys) {
    if (c.device == device && !InvolvesHost(c)) {
      activities_.push_back({c.start_ns, c.end_ns, c.stream, c.correlation, false, c.graph_node_id != 0, false});
    }
  }
  // A graph recorded at graph level is one span, busy from its first node's start to its last node's
  // end: gaps between its nodes are not visible.
  for (const GraphLaunchRecord& g : trace.graph_launches) {
    if (g.device == device) activities_.push_back({g.start_ns, g.end_ns, g.stream, g.correlation, false, true, true});
  }
  std::stable_sort(activities_.begin(), activities_.end(),
                   [](const Activity& a, const Activity& b) { return a.start_ns < b.start_ns; });
  for (const Activity& a : activities_) {
    max_dur_ns_ = std::max(max_dur_ns_, a.end_ns - a.start_ns);
    last_end_ns_ = std::max(last_end_ns_, a.end_ns);
  }
}

std::optional<TimeWindow> TimelineAnalyzer::ActivitySpan() const {
  if (activities_.empty()) return std::nullopt;
  return TimeWindow{activities_.front().start_ns, last_end_ns_};
}

std::vector<TimelineAnalyzer::Activity> TimelineAnalyzer::Select(TimeWindow window) const {
  // Nothing that starts before start_ns - max_dur_ns_ can reach into the window.
  const auto by_start = [](const Activity& a, int64_t t) { return a.start_ns < t; };
  auto it = std::lower_bound(activities_.begin(), activities_.end(), window.start_ns - max_dur_ns_, by_start);
  std::vector<Activity> out;
  for (; it != activities_.end() && it->start_ns < window.end_ns; ++it) {
    Activity a = *it;
    a.start_ns = std::max(a.start_ns, window.start_ns);
    a.end_ns = std::min(a.end_ns, window.end_ns);
    if (a.end_ns > a.start_ns) out.push_back(a);
  }
  // Clipping keeps the order by start: only starts before the window move, all to the same time.
  return out;
}

TimelineMetrics TimelineAnalyzer::Compute(TimeWindow window) const {
  TimelineMetrics out;
  out.device = device_;
  out.window = window;
  const std::vector<Activity> selected = Select(window);
  ActivitySweep sweep(window);
  std::vector<Interval> kernels;
  std::map<StreamId, std::vector<Interval>> by_stream;
  std::map<StreamId, int64_t> kernels_by_stream;
  for (const Activity& a : selected) {
    sweep.Add(a.start_ns, a.end_ns, [&a] { return NextWork{a.stream, a.correlation, a.from_graph}; });
    by_stream[a.stream].push_back({a.start_ns, a.end_ns});
    if (a.is_graph_launch) ++out.graph_launch_count;
    if (!a.is_kernel) continue;
    kernels.push_back({a.start_ns, a.end_ns});
    ++kernels_by_stream[a.stream];
  }
  ActivityUnion activity = std::move(sweep).Finish();
  ClassifyGaps(classifier_, activity);
  out.active_ns = activity.active_ns;
  out.idle_ns = std::max<int64_t>(0, window.dur_ns() - out.active_ns);
  out.overlap_ns = TimeAtDepth(kernels, 2);
  out.kernel_count = static_cast<int64_t>(kernels.size());
  out.active_ratio = window.dur_ns() > 0 ? static_cast<double>(out.active_ns) / static_cast<double>(window.dur_ns()) : 0;
  for (auto& [stream, spans] : by_stream) {
    out.streams.push_back({stream, TotalLength(MergeIntervals(std::move(spans))), kernels_by_stream[stream]});
  }
  for (const IdleGap& gap : activity.gaps) out.idle_by_cause.Add(gap);
  out.gaps = std::move(activity.gaps);
  return out;
}

std::vector<DeviceId> ActiveDevices(const Trace& trace) {
  std::vector<DeviceId> out;
  for (const KernelRecord& k : trace.kernels) out.push_back(k.device);
  for (const MemsetRecord& m : trace.memsets) out.push_back(m.device);
  for (const MemcpyRecord& c : trace.memcpys) out.push_back(c.device);
  for (const GraphLaunchRecord& g : trace.graph_launches) {
    if (g.device.valid()) out.push_back(g.device);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<TimeWindow> WindowsFromNvtx(const Trace& trace, std::string_view text) {
  const StringId id = trace.strings.Find(text);
  std::vector<TimeWindow> out;
  if (!id.valid()) return out;
  for (const NvtxRange& r : trace.ranges) {
    if (r.text == id && r.end_ns > r.start_ns) out.push_back({r.start_ns, r.end_ns});
  }
  std::sort(out.begin(), out.end(), [](const TimeWindow& a, const TimeWindow& b) { return a.start_ns < b.start_ns; });
  return out;
}

}  // namespace nimble::analysis
