// Puts the spans of one timeline track into lanes in which any two spans either nest or do not overlap,
// which is what trace viewers need of the complete ("X") events of one thread: spans in viewer order
// (start ascending, longer first), each into the first lane where it crosses no open span. Input that
// already nests stays in lane 0. Pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace nimble::workflow {

struct LaneSpan {
  int64_t start_ns = 0;
  int64_t end_ns = 0;  // >= start_ns
};

// The order viewers draw one thread's events in: start ascending, then end descending (a parent before
// its children).
inline bool ViewerOrder(const LaneSpan& a, const LaneSpan& b) {
  return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.end_ns > b.end_ns;
}

// The lane of each span; `spans` must be in ViewerOrder. Lanes are numbered from 0 without holes.
std::vector<int32_t> AssignNestingLanes(std::span<const LaneSpan> spans);

}  // namespace nimble::workflow
