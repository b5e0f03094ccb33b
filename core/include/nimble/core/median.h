// The median of a set of durations or counts, used wherever a run reports one figure per iteration.
// For an even count it returns the upper of the two middle values (a measured value, not an average);
// 0 for an empty set. Pure function.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace nimble {

inline int64_t Median(std::vector<int64_t> values) {
  if (values.empty()) return 0;
  const auto mid = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), mid, values.end());
  return *mid;
}

}  // namespace nimble
