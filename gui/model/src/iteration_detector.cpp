#include "nimble/gui/iteration_detector.h"

#include <algorithm>
#include <map>

#include "nimble/core/median.h"

namespace nimble::gui {

IterationRanges DetectIterations(std::span<const TextRange> ranges) {
  std::map<int32_t, std::vector<std::pair<int64_t, int64_t>>> by_text;
  for (const TextRange& r : ranges) {
    if (r.text.valid() && r.end_ns > r.start_ns) by_text[r.text.value()].emplace_back(r.start_ns, r.end_ns);
  }
  IterationRanges best;
  size_t best_count = 0;
  int64_t best_total_ns = 0;
  for (auto& [text, windows] : by_text) {
    if (windows.size() < 2) continue;
    std::sort(windows.begin(), windows.end());
    bool overlaps = false;
    int64_t total_ns = 0;
    for (size_t i = 0; i < windows.size(); ++i) {
      total_ns += windows[i].second - windows[i].first;
      if (i > 0 && windows[i].first < windows[i - 1].second) overlaps = true;
    }
    if (overlaps) continue;
    // std::map visits texts by id, so on a full tie the smaller id stays.
    if (windows.size() > best_count || (windows.size() == best_count && total_ns > best_total_ns)) {
      best.text = StringId(text);
      best.windows = windows;
      best_count = windows.size();
      best_total_ns = total_ns;
    }
  }
  return best;
}

int MedianIteration(std::span<const std::pair<int64_t, int64_t>> windows) {
  if (windows.empty()) return -1;
  std::vector<int64_t> lengths;
  lengths.reserve(windows.size());
  for (const auto& [start, end] : windows) lengths.push_back(end - start);
  const int64_t median = Median(lengths);
  const auto it = std::find(lengths.begin(), lengths.end(), median);
  return static_cast<int>(it - lengths.begin());
}

IterationPick PickIteration(int k, size_t count) {
  const std::string asked = "--iteration " + std::to_string(k);
  if (count == 0) return {-1, asked + ": the run has no iterations (no NVTX range repeats); showing all of it"};
  const int last = static_cast<int>(count);
  if (k >= 1 && k <= last) return {k - 1, ""};
  const int shown = k < 1 ? 1 : last;
  return {shown - 1, asked + ": the run has " + std::to_string(count) + (count == 1 ? " iteration" : " iterations") +
                         " (1 to " + std::to_string(last) + "); showing iteration " + std::to_string(shown)};
}

}  // namespace nimble::gui
