#include "nimble/gui/lane_set.h"

#include <algorithm>
#include <atomic>
#include <numeric>
#include <thread>

namespace nimble::gui {

RowItems& LaneSet::Staging(const LaneKey& key) {
  if (last_ < keys_.size() && keys_[last_] == key) return staging_[last_];
  auto [it, inserted] = index_.try_emplace(key, keys_.size());
  if (inserted) {
    keys_.push_back(key);
    staging_.emplace_back();
  }
  last_ = it->second;
  return staging_[last_];
}

void LaneSet::Absorb(LaneSet&& later) {
  for (size_t i = 0; i < later.keys_.size(); ++i) {
    RowItems& mine = Staging(later.keys_[i]);
    if (mine.empty()) std::swap(mine, later.staging_[i]);
    else mine.Append(later.staging_[i]);
    later.staging_[i] = RowItems();  // free as we go: the two copies never coexist for long
  }
  later.keys_.clear();
  later.index_.clear();
}

std::vector<RowItems> SplitIntoDisjointRows(RowItems items) {
  items.Finish();
  bool disjoint = true;
  for (size_t i = 1; i < items.size() && disjoint; ++i) disjoint = items.start_ns(i) >= items.max_end_ns(i - 1);
  std::vector<RowItems> rows;
  if (disjoint) {
    rows.push_back(std::move(items));
    return rows;
  }
  std::vector<int64_t> row_end_ns;
  for (size_t i = 0; i < items.size(); ++i) {
    size_t r = 0;
    while (r < rows.size() && row_end_ns[r] > items.start_ns(i)) ++r;
    if (r == rows.size()) {
      rows.emplace_back();
      row_end_ns.push_back(INT64_MIN);
    }
    rows[r].Add(items.start_ns(i), items.end_ns(i), items.label(i), items.ref(i));
    row_end_ns[r] = items.effective_end_ns(i);
  }
  for (RowItems& row : rows) row.Finish();
  return rows;
}

std::vector<Lane> LaneSet::Finish(unsigned threads) {
  std::vector<size_t> order(keys_.size());
  std::iota(order.begin(), order.end(), size_t{0});
  const auto rank = [&](size_t i) {
    const LaneKey& k = keys_[i];
    const bool host = k.kind == LaneKind::kHostRanges || k.kind == LaneKind::kHostApi;
    return std::tuple(host, k.owner, static_cast<int32_t>(k.kind), k.stream);
  };
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return rank(a) < rank(b); });
  std::vector<Lane> lanes(order.size());
  for (size_t n = 0; n < order.size(); ++n) {
    const LaneKey& k = keys_[order[n]];
    Lane& lane = lanes[n];
    lane.kind = k.kind;
    const bool host = k.kind == LaneKind::kHostRanges || k.kind == LaneKind::kHostApi;
    if (host) lane.thread = ThreadId(k.owner);
    else lane.device = DeviceId(static_cast<int32_t>(k.owner));
    if (k.kind == LaneKind::kStream) lane.stream = StreamId(k.stream);
  }
  // Sorting and summarising lanes are independent: share them between threads, biggest lanes first.
  std::vector<size_t> by_size(order.size());
  std::iota(by_size.begin(), by_size.end(), size_t{0});
  std::sort(by_size.begin(), by_size.end(),
            [&](size_t a, size_t b) { return staging_[order[a]].size() > staging_[order[b]].size(); });
  std::atomic<size_t> next{0};
  const auto work = [&] {
    for (size_t n = next++; n < by_size.size(); n = next++) {
      lanes[by_size[n]].rows = SplitIntoDisjointRows(std::move(staging_[order[by_size[n]]]));
    }
  };
  std::vector<std::thread> helpers;
  for (unsigned t = 1; t < std::min<unsigned>(threads, static_cast<unsigned>(order.size())); ++t) helpers.emplace_back(work);
  work();
  for (std::thread& t : helpers) t.join();
  keys_.clear();
  staging_.clear();
  index_.clear();
  return lanes;
}

}  // namespace nimble::gui
