#include "nimble/gui/lod_levels.h"

#include <algorithm>
#include <array>

#include "nimble/gui/row_items.h"

namespace nimble::gui {
namespace {

constexpr int64_t Threshold(int level) { return int64_t{1} << (2 * level); }  // 4^level ns

// The finest level that does NOT join a gap of `gap_ns`: a new span starts there at levels 1..result.
int GapBucket(int64_t gap_ns) {
  int bucket = 0;
  while (bucket < LodLevels::kMaxLevels && gap_ns >= Threshold(bucket + 1)) ++bucket;
  return bucket;
}

// Galloping search for the first index in [from, to) with key(i) > t (keys non-decreasing).
template <typename Key>
size_t GallopPast(size_t from, size_t to, int64_t t, Key key) {
  if (from >= to || key(from) > t) return from;
  size_t lo = from;
  size_t step = 1;
  while (lo + step < to && key(lo + step) <= t) {
    lo += step;
    step *= 2;
  }
  size_t hi = std::min(to, lo + step);
  while (hi - lo > 1) {
    const size_t mid = lo + (hi - lo) / 2;
    if (key(mid) <= t) lo = mid;
    else hi = mid;
  }
  return hi;
}

}  // namespace

size_t SpanLevel::FirstStartingAtOrAfter(size_t from, size_t to, int64_t t_ns) const {
  return GallopPast(from, to, t_ns - 1, [this](size_t i) { return start_ns[i]; });
}

size_t SpanLevel::FirstMaxEndAfter(size_t from, size_t to, int64_t t_ns) const {
  return GallopPast(from, to, t_ns, [this](size_t i) { return end_ns[i]; });
}

std::pair<size_t, size_t> SpanLevel::SpansOfItems(uint32_t item_first, uint32_t item_end) const {
  const auto a = std::lower_bound(first_item.begin(), first_item.end(), item_first);
  const auto b = std::lower_bound(a, first_item.end(), item_end);
  return {static_cast<size_t>(a - first_item.begin()), static_cast<size_t>(b - first_item.begin())};
}

void LodLevels::Build(const RowItems& items) {
  levels_.clear();
  const size_t n = items.size();
  if (n < 2) return;
  // Pass 1: how many spans each level would have (a gap starts a span at every level it is not joined).
  std::array<size_t, kMaxLevels + 1> starting_at_least{};  // gaps by bucket
  for (size_t i = 1; i < n; ++i) ++starting_at_least[static_cast<size_t>(GapBucket(items.start_ns(i) - items.max_end_ns(i - 1)))];
  std::array<int, kMaxLevels + 1> slot{};  // level -> index in levels_, or -1
  slot.fill(-1);
  size_t kept_count = n;
  size_t joined = 0;  // gaps in buckets below the level, which that level joins
  for (int level = 1; level <= kMaxLevels && kept_count > 1; ++level) {
    joined += starting_at_least[static_cast<size_t>(level - 1)];
    const size_t count = n - joined;
    if (count * 2 > kept_count) continue;
    slot[static_cast<size_t>(level)] = static_cast<int>(levels_.size());
    SpanLevel& l = levels_.emplace_back();
    l.threshold_ns = Threshold(level);
    l.item_count = static_cast<uint32_t>(n);
    l.start_ns.reserve(count);
    l.end_ns.reserve(count);
    l.first_item.reserve(count);
    kept_count = count;
  }
  // Pass 2: fill the kept levels. Spans of every level close at the prefix maximum of ends.
  for (SpanLevel& l : levels_) {
    l.start_ns.push_back(items.start_ns(0));
    l.first_item.push_back(0);
  }
  for (size_t i = 1; i < n; ++i) {
    const int bucket = GapBucket(items.start_ns(i) - items.max_end_ns(i - 1));
    for (int level = 1; level <= bucket; ++level) {
      const int s = slot[static_cast<size_t>(level)];
      if (s < 0) continue;
      SpanLevel& l = levels_[static_cast<size_t>(s)];
      l.end_ns.push_back(items.max_end_ns(i - 1));
      l.start_ns.push_back(items.start_ns(i));
      l.first_item.push_back(static_cast<uint32_t>(i));
    }
  }
  for (SpanLevel& l : levels_) l.end_ns.push_back(items.max_end_ns(n - 1));
}

int LodLevels::CoarsestWithin(double ns_per_px) const {
  int best = -1;
  for (size_t i = 0; i < levels_.size(); ++i) {
    if (static_cast<double>(levels_[i].threshold_ns) <= ns_per_px) best = static_cast<int>(i);
  }
  return best;
}

size_t LodLevels::bytes() const {
  size_t total = 0;
  for (const SpanLevel& l : levels_) total += l.start_ns.capacity() * 8 + l.end_ns.capacity() * 8 + l.first_item.capacity() * 4;
  return total;
}

}  // namespace nimble::gui
