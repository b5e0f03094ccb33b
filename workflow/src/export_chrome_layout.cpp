#include "export_chrome_layout.h"

#include <algorithm>

#include "export_chrome_lanes.h"

namespace nimble::workflow {
namespace {

size_t SourceSize(SpanSource source, const RunTimeline& timeline, const Trace& trace) {
  switch (source) {
    case SpanSource::kKernel: return trace.kernels.size();
    case SpanSource::kMemcpy: return trace.memcpys.size();
    case SpanSource::kMemset: return trace.memsets.size();
    case SpanSource::kGraphLaunch: return trace.graph_launches.size();
    case SpanSource::kSync: return trace.syncs.size();
    case SpanSource::kApiCall: return trace.api_calls.size();
    case SpanSource::kRange: return trace.ranges.size();
    case SpanSource::kGap: return timeline.gaps.size();
    case SpanSource::kCriticalOp:
    case SpanSource::kAssignedOp: return timeline.ops.size();
    case SpanSource::kSegment: return timeline.segments.size();
  }
  return 0;
}

// Thread ids of one process: lane 0 of a track keeps its wanted id (stream, OS thread); fresh ids for
// the other lanes and tracks lie above every wanted one, so none is given twice.
class TidPool {
 public:
  explicit TidPool(const std::set<int64_t>& wanted)
      : wanted_(wanted), next_(wanted.empty() ? 1 : std::max<int64_t>(*wanted.rbegin() + 1, 1)) {}
  int64_t Take(int64_t wanted) {
    if (wanted >= 0 && wanted_.count(wanted) && given_.insert(wanted).second) return wanted;
    while (wanted_.count(next_) || !given_.insert(next_).second) ++next_;
    return next_++;
  }

 private:
  std::set<int64_t> wanted_;
  std::set<int64_t> given_;
  int64_t next_;
};

}  // namespace

int64_t PidRegistry::Take(int64_t wanted) {
  if (wanted >= 0 && used_.insert(wanted).second) return wanted;
  int64_t fresh = used_.empty() ? 0 : std::max<int64_t>(*used_.rbegin() + 1, 0);
  while (!used_.insert(fresh).second) ++fresh;
  return fresh;
}

TimelineLayout LayOutTimeline(RunTimeline& timeline, const Trace& trace, PidRegistry& pids) {
  TimelineLayout layout;
  // Devices first: Kineto readers take a GPU's pid for its ordinal, an OS pid is only a label.
  layout.pids.assign(timeline.processes.size(), -1);
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t p = 0; p < timeline.processes.size(); ++p) {
      if (timeline.processes[p].gpu == (pass == 0)) layout.pids[p] = pids.Take(timeline.processes[p].wanted_pid);
    }
  }
  for (size_t s = 0; s < kNumSpanSources; ++s) {
    layout.lane_of_source[s].assign(SourceSize(static_cast<SpanSource>(s), timeline, trace), -1);
  }
  // Wanted tids first, so that a fresh tid never takes a stream's or a thread's own id.
  std::vector<std::set<int64_t>> wanted(timeline.processes.size());
  for (const ChromeTrack& t : timeline.tracks) {
    if (t.wanted_tid >= 0) wanted[t.process].insert(t.wanted_tid);
  }
  std::vector<TidPool> tids;
  for (const auto& w : wanted) tids.emplace_back(w);
  std::vector<int64_t> next_sort(timeline.processes.size(), 0);
  layout.lane_of.resize(timeline.tracks.size());
  for (size_t ti = 0; ti < timeline.tracks.size(); ++ti) {
    ChromeTrack& track = timeline.tracks[ti];
    if (track.spans.empty()) continue;  // nothing to show: no thread either
    std::stable_sort(track.spans.begin(), track.spans.end(), [](const TrackSpan& a, const TrackSpan& b) {
      return ViewerOrder({a.start_ns, a.end_ns}, {b.start_ns, b.end_ns});
    });
    std::vector<LaneSpan> spans;
    spans.reserve(track.spans.size());
    for (const TrackSpan& s : track.spans) spans.push_back({s.start_ns, s.end_ns});
    const std::vector<int32_t> lane = AssignNestingLanes(spans);
    const int32_t num_lanes = *std::max_element(lane.begin(), lane.end()) + 1;
    const size_t first = layout.lanes.size();
    for (int32_t l = 0; l < num_lanes; ++l) {
      TrackLane out;
      out.track = ti;
      out.lane = l;
      out.pid = layout.pids[track.process];
      out.tid = tids[track.process].Take(l == 0 ? track.wanted_tid : -1);
      out.sort_index = next_sort[track.process]++;
      out.name = l == 0 ? track.name : track.name + " (overlapping " + std::to_string(l) + ")";
      layout.lanes.push_back(std::move(out));
    }
    layout.overflow_lanes += num_lanes - 1;
    std::vector<int32_t>& lane_of = layout.lane_of[ti];
    lane_of.resize(track.spans.size());
    for (size_t i = 0; i < track.spans.size(); ++i) {
      lane_of[i] = static_cast<int32_t>(first) + lane[i];
      const TrackSpan& s = track.spans[i];
      layout.lane_of_source[static_cast<size_t>(s.source)][static_cast<size_t>(s.index)] = lane_of[i];
    }
  }
  return layout;
}

}  // namespace nimble::workflow
