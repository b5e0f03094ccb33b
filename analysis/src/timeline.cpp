#include "nimble/analysis/timeline.h"

#include <algorithm>
#include <map>

#include "intervals.h"

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
  std::vector<Interval> all;
  std::vector<Interval> kernels;
  std::map<StreamId, std::vector<Interval>> by_stream;
  std::map<StreamId, int64_t> kernels_by_stream;
  for (const Activity& a : selected) {
    all.push_back({a.start_ns, a.end_ns});
    by_stream[a.stream].push_back({a.start_ns, a.end_ns});
    if (a.is_graph_launch) ++out.graph_launch_count;
    if (!a.is_kernel) continue;
    kernels.push_back({a.start_ns, a.end_ns});
    ++kernels_by_stream[a.stream];
  }
  out.active_ns = TotalLength(MergeIntervals(std::move(all)));
  out.idle_ns = std::max<int64_t>(0, window.dur_ns() - out.active_ns);
  out.overlap_ns = TimeAtDepth(kernels, 2);
  out.kernel_count = static_cast<int64_t>(kernels.size());
  out.active_ratio = window.dur_ns() > 0 ? static_cast<double>(out.active_ns) / static_cast<double>(window.dur_ns()) : 0;
  for (auto& [stream, spans] : by_stream) {
    out.streams.push_back({stream, TotalLength(MergeIntervals(std::move(spans))), kernels_by_stream[stream]});
  }
  AddGaps(selected, window, out);
  return out;
}

void TimelineAnalyzer::AddGaps(const std::vector<Activity>& selected, TimeWindow window, TimelineMetrics& out) const {
  // Walk by start; `covered_until` is the end of the union so far. A start past it closes a gap,
  // and the activity starting there is the work that ended it.
  int64_t covered_until = window.start_ns;
  auto add = [&](int64_t start_ns, int64_t end_ns, const Activity* next) {
    IdleGap gap;
    gap.start_ns = start_ns;
    gap.dur_ns = end_ns - start_ns;
    if (next != nullptr) {
      gap.next_stream = next->stream;
      gap.next_correlation = next->correlation;
      gap.next_from_graph = next->from_graph;
    }
    gap.cause = classifier_.Classify(start_ns, end_ns,
                                     next != nullptr ? std::optional(next->correlation) : std::nullopt);
    out.idle_by_cause.Add(gap);
    out.gaps.push_back(gap);
  };
  for (const Activity& a : selected) {
    if (a.start_ns > covered_until) add(covered_until, a.start_ns, &a);
    covered_until = std::max(covered_until, a.end_ns);
  }
  if (covered_until < window.end_ns) add(covered_until, window.end_ns, nullptr);
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
