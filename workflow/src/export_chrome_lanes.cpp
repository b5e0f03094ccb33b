#include "export_chrome_lanes.h"

namespace nimble::workflow {

std::vector<int32_t> AssignNestingLanes(std::span<const LaneSpan> spans) {
  std::vector<int32_t> lane_of(spans.size(), 0);
  // Per lane, the ends of the spans still open, innermost last; they never increase towards the top.
  std::vector<std::vector<int64_t>> open_ends;
  for (size_t i = 0; i < spans.size(); ++i) {
    const LaneSpan& s = spans[i];
    size_t lane = 0;
    for (; lane < open_ends.size(); ++lane) {
      std::vector<int64_t>& stack = open_ends[lane];
      while (!stack.empty() && stack.back() <= s.start_ns) stack.pop_back();
      // The innermost open span encloses `s`, or nothing is open: `s` nests here.
      if (stack.empty() || stack.back() >= s.end_ns) break;
    }
    if (lane == open_ends.size()) open_ends.emplace_back();
    open_ends[lane].push_back(s.end_ns);
    lane_of[i] = static_cast<int32_t>(lane);
  }
  return lane_of;
}

}  // namespace nimble::workflow
