#include "intervals.h"

#include <algorithm>
#include <utility>

namespace nimble::analysis {

std::vector<Interval> MergeIntervals(std::vector<Interval> spans) {
  std::sort(spans.begin(), spans.end(), [](const Interval& a, const Interval& b) { return a.start_ns < b.start_ns; });
  std::vector<Interval> out;
  for (const Interval& s : spans) {
    if (s.end_ns <= s.start_ns) continue;
    if (!out.empty() && s.start_ns <= out.back().end_ns) {
      out.back().end_ns = std::max(out.back().end_ns, s.end_ns);
    } else {
      out.push_back(s);
    }
  }
  return out;
}

int64_t TotalLength(const std::vector<Interval>& merged) {
  int64_t total = 0;
  for (const Interval& s : merged) total += s.end_ns - s.start_ns;
  return total;
}

int64_t CoveredLength(const std::vector<Interval>& merged, int64_t start_ns, int64_t end_ns) {
  // First span that ends after start_ns.
  auto it = std::upper_bound(merged.begin(), merged.end(), start_ns,
                             [](int64_t t, const Interval& s) { return t < s.end_ns; });
  int64_t covered = 0;
  for (; it != merged.end() && it->start_ns < end_ns; ++it) {
    covered += std::min(end_ns, it->end_ns) - std::max(start_ns, it->start_ns);
  }
  return covered;
}

int64_t TimeAtDepth(const std::vector<Interval>& spans, int32_t depth) {
  std::vector<std::pair<int64_t, int32_t>> events;  // (time, +1 start / -1 end); ends sort first
  events.reserve(spans.size() * 2);
  for (const Interval& s : spans) {
    if (s.end_ns <= s.start_ns) continue;
    events.emplace_back(s.start_ns, 1);
    events.emplace_back(s.end_ns, -1);
  }
  std::sort(events.begin(), events.end());
  int64_t total = 0;
  int32_t running = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    running += events[i].second;
    if (running >= depth && i + 1 < events.size()) total += events[i + 1].first - events[i].first;
  }
  return total;
}

}  // namespace nimble::analysis
