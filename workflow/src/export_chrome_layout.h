// Gives a run's timeline the ids of the file: a pid per process (the wanted one — device ordinal, OS
// process id — unless an earlier process of the file holds it, else a fresh one), a thread per track lane
// (lanes split a track whose spans overlap without nesting; lane 0 keeps the wanted tid: stream or OS
// thread id), sort indexes in display order, and the lane every span landed on, for the arrows.
// Sorts each track's spans into viewer order. One thread.
#pragma once

#include <array>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "export_chrome_timeline.h"
#include "nimble/core/trace.h"

namespace nimble::workflow {

// The pids already in the file. Kineto readers take a GPU's pid for its ordinal, so the first process
// that wants one gets it.
class PidRegistry {
 public:
  int64_t Take(int64_t wanted);

 private:
  std::set<int64_t> used_;
};

struct TrackLane {
  size_t track = 0;
  int32_t lane = 0;
  int64_t pid = 0;
  int64_t tid = 0;
  int64_t sort_index = 0;  // within its process
  std::string name;
};

struct TimelineLayout {
  std::vector<int64_t> pids;          // by process
  std::vector<TrackLane> lanes;       // display order
  std::vector<std::vector<int32_t>> lane_of;  // by track, then span (in the track's sorted order): index into lanes
  // By span source, then the source's index: the lane it landed on, or -1 for one on no track.
  std::array<std::vector<int32_t>, kNumSpanSources> lane_of_source;
  int64_t overflow_lanes = 0;  // lanes past lane 0
};

TimelineLayout LayOutTimeline(RunTimeline& timeline, const Trace& trace, PidRegistry& pids);

}  // namespace nimble::workflow
