#include "nimble/gui/row_items.h"

#include <algorithm>
#include <numeric>

namespace nimble::gui {
namespace {

// Reorders `values` so that values[i] becomes old values[order[i]].
template <typename T>
void Permute(std::vector<T>& values, const std::vector<uint32_t>& order) {
  std::vector<T> out(values.size());
  for (size_t i = 0; i < order.size(); ++i) out[i] = values[order[i]];
  values.swap(out);
}

// Items a hit test looks at beyond the first candidate: enough for nested overlaps, bounded for speed.
constexpr size_t kMaxHitCandidates = 64;

}  // namespace

void RowItems::Add(int64_t start_ns, int64_t end_ns, int32_t label, ItemRef ref) {
  start_ns_.push_back(start_ns);
  end_ns_.push_back(std::max(end_ns, start_ns));
  label_.push_back(label);
  ref_.push_back(ref.bits());
}

void RowItems::Reserve(size_t n) {
  start_ns_.reserve(n);
  end_ns_.reserve(n);
  label_.reserve(n);
  ref_.reserve(n);
}

void RowItems::Append(const RowItems& other) {
  start_ns_.insert(start_ns_.end(), other.start_ns_.begin(), other.start_ns_.end());
  end_ns_.insert(end_ns_.end(), other.end_ns_.begin(), other.end_ns_.end());
  label_.insert(label_.end(), other.label_.begin(), other.label_.end());
  ref_.insert(ref_.end(), other.ref_.begin(), other.ref_.end());
}

void RowItems::Finish() {
  const size_t n = size();
  bool sorted = true;
  for (size_t i = 1; i < n && sorted; ++i) {
    sorted = start_ns_[i - 1] < start_ns_[i] || (start_ns_[i - 1] == start_ns_[i] && ref_[i - 1] <= ref_[i]);
  }
  if (!sorted) {
    std::vector<uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      return start_ns_[a] != start_ns_[b] ? start_ns_[a] < start_ns_[b] : ref_[a] < ref_[b];
    });
    Permute(start_ns_, order);
    Permute(end_ns_, order);
    Permute(label_, order);
    Permute(ref_, order);
  }
  max_end_ns_.clear();
  bool ends_sorted = true;
  for (size_t i = 1; i < n && ends_sorted; ++i) ends_sorted = effective_end_ns(i - 1) <= effective_end_ns(i);
  if (!ends_sorted) {
    max_end_ns_.resize(n);
    int64_t running = INT64_MIN;
    for (size_t i = 0; i < n; ++i) max_end_ns_[i] = running = std::max(running, effective_end_ns(i));
  }
  levels_.Build(*this);
}

size_t RowItems::FirstReaching(int64_t t_ns) const { return FirstMaxEndAfter(0, size(), t_ns); }

size_t RowItems::FirstStartingAtOrAfter(size_t from, size_t to, int64_t t_ns) const {
  const size_t n = std::min(to, size());
  if (from >= n || start_ns_[from] >= t_ns) return from;
  // Gallop: double the step until past the target, then binary search the last step.
  size_t lo = from;  // start_ns_[lo] < t_ns
  size_t step = 1;
  while (lo + step < n && start_ns_[lo + step] < t_ns) {
    lo += step;
    step *= 2;
  }
  const size_t hi = std::min(n, lo + step);
  return static_cast<size_t>(std::lower_bound(start_ns_.begin() + static_cast<std::ptrdiff_t>(lo + 1),
                                              start_ns_.begin() + static_cast<std::ptrdiff_t>(hi), t_ns) -
                             start_ns_.begin());
}

size_t RowItems::FirstMaxEndAfter(size_t from, size_t to, int64_t t_ns) const {
  if (from >= to || max_end_ns(from) > t_ns) return from;
  size_t lo = from;  // max_end_ns(lo) <= t_ns
  size_t step = 1;
  while (lo + step < to && max_end_ns(lo + step) <= t_ns) {
    lo += step;
    step *= 2;
  }
  size_t hi = std::min(to, lo + step);  // max_end_ns(hi) > t_ns, or hi == to
  while (hi - lo > 1) {
    const size_t mid = lo + (hi - lo) / 2;
    if (max_end_ns(mid) <= t_ns) lo = mid;
    else hi = mid;
  }
  return hi;
}

int64_t RowItems::FindNear(int64_t t_ns, int64_t tolerance_ns) const {
  int64_t best = -1;
  int64_t best_distance = INT64_MAX;
  int64_t best_dur = INT64_MAX;
  size_t i = FirstReaching(t_ns - tolerance_ns);
  for (size_t seen = 0; i < size() && start_ns_[i] <= t_ns + tolerance_ns && seen < kMaxHitCandidates; ++i, ++seen) {
    const int64_t end = effective_end_ns(i);
    const int64_t distance = t_ns < start_ns_[i] ? start_ns_[i] - t_ns : t_ns >= end ? t_ns - end + 1 : 0;
    if (distance > tolerance_ns) continue;
    // Prefer the closest, then the shortest (the innermost of nested items).
    const int64_t dur = end - start_ns_[i];
    if (distance < best_distance || (distance == best_distance && dur < best_dur)) {
      best = static_cast<int64_t>(i);
      best_distance = distance;
      best_dur = dur;
    }
  }
  return best;
}

size_t RowItems::bytes() const {
  return start_ns_.capacity() * 8 + end_ns_.capacity() * 8 + max_end_ns_.capacity() * 8 + label_.capacity() * 4 +
         ref_.capacity() * 4 + levels_.bytes();
}

}  // namespace nimble::gui
