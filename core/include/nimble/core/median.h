// The median of a set of durations or counts, used wherever a run reports one figure per iteration.
// For an even count it returns the upper of the two middle values (a measured value, not an average);
// 0 for an empty set. MedianIndex picks the median element of a collection by key with the same rule.
// Pure functions.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace nimble {

inline int64_t Median(std::vector<int64_t> values) {
  if (values.empty()) return 0;
  const auto mid = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), mid, values.end());
  return *mid;
}

// The position in `keys` of the element a stable sort by key puts at size() / 2: keys[i] is then
// Median(keys), and among equal keys the order given decides, so the choice does not depend on the
// sort's implementation. nullopt for no keys.
inline std::optional<size_t> MedianIndex(std::span<const int64_t> keys) {
  if (keys.empty()) return std::nullopt;
  std::vector<size_t> order(keys.size());
  std::iota(order.begin(), order.end(), size_t{0});
  const auto mid = order.begin() + static_cast<std::ptrdiff_t>(order.size() / 2);
  std::nth_element(order.begin(), mid, order.end(),
                   [&](size_t a, size_t b) { return std::pair(keys[a], a) < std::pair(keys[b], b); });
  return *mid;
}

}  // namespace nimble
