// The memory a branch capture has seen freed (branch_capture.h): disjoint address ranges, each with
// what an allocation of that memory must be ordered after. Plain data, header-only so that it is
// tested without a GPU; one owner, no locking.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace nimble::accelerate {

template <typename Node>
class FreedRanges {
 public:
  // The nodes of every range that overlaps [start, end), sorted and without repeats.
  std::vector<Node> Overlapping(uintptr_t start, uintptr_t end) const {
    std::vector<Node> nodes;
    for (auto it = First(start); it != ranges_.end() && it->first < end; ++it) {
      if (it->second.end > start) nodes.insert(nodes.end(), it->second.after.begin(), it->second.after.end());
    }
    SortUnique(&nodes);
    return nodes;
  }

  // [start, end) must now be ordered after `after`. The parts of earlier ranges it covers are
  // replaced (their nodes added to `after` first when `keep_covered`); the parts outside it stay.
  void Set(uintptr_t start, uintptr_t end, std::vector<Node> after, bool keep_covered) {
    std::vector<std::pair<uintptr_t, Range>> outside;
    for (auto it = First(start); it != ranges_.end() && it->first < end;) {
      if (it->second.end <= start) {
        ++it;
        continue;
      }
      if (keep_covered) after.insert(after.end(), it->second.after.begin(), it->second.after.end());
      if (it->first < start) outside.push_back({it->first, Range{start, it->second.after}});
      if (it->second.end > end) outside.push_back({end, Range{it->second.end, it->second.after}});
      it = ranges_.erase(it);
    }
    for (auto& [from, range] : outside) ranges_.emplace(from, std::move(range));
    SortUnique(&after);
    ranges_[start] = Range{end, std::move(after)};
  }

  size_t size() const { return ranges_.size(); }

 private:
  struct Range {
    uintptr_t end = 0;
    std::vector<Node> after;
  };

  // The range that may contain `start`, or the first after it.
  typename std::map<uintptr_t, Range>::const_iterator First(uintptr_t start) const {
    auto it = ranges_.upper_bound(start);
    return it == ranges_.begin() ? it : std::prev(it);
  }
  typename std::map<uintptr_t, Range>::iterator First(uintptr_t start) {
    auto it = ranges_.upper_bound(start);
    return it == ranges_.begin() ? it : std::prev(it);
  }
  static void SortUnique(std::vector<Node>* nodes) {
    std::sort(nodes->begin(), nodes->end());
    nodes->erase(std::unique(nodes->begin(), nodes->end()), nodes->end());
  }

  std::map<uintptr_t, Range> ranges_;  // by start address
};

}  // namespace nimble::accelerate
