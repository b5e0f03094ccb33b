// Interval arithmetic on half-open [start_ns, end_ns) spans, shared by the timeline and gap code.
// Merged lists are sorted and disjoint (touching spans are joined). Internal to analysis; pure functions.
#pragma once

#include <cstdint>
#include <vector>

namespace nimble::analysis {

struct Interval {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

// Sorts and joins overlapping or touching spans; drops empty ones.
std::vector<Interval> MergeIntervals(std::vector<Interval> spans);

// Sum of lengths of merged spans.
int64_t TotalLength(const std::vector<Interval>& merged);

// Length of the part of [start_ns, end_ns) covered by `merged` (binary search, then a scan).
int64_t CoveredLength(const std::vector<Interval>& merged, int64_t start_ns, int64_t end_ns);

// Time during which at least `depth` of `spans` are running at once (sweep over start/end events).
int64_t TimeAtDepth(const std::vector<Interval>& spans, int32_t depth);

}  // namespace nimble::analysis
