#include "nimble/gui/idle_gap_finder.h"

#include <algorithm>
#include <unordered_set>
#include <utility>

namespace nimble::gui {
namespace {

struct Cursor {
  const RowItems* row = nullptr;
  StreamId stream;
  size_t next = 0;
};

bool IsActivity(const RunTimeline& timeline, ItemRef ref) {
  if (ref.kind() != ItemKind::kMemcpy) {
    return ref.kind() == ItemKind::kKernel || ref.kind() == ItemKind::kMemset || ref.kind() == ItemKind::kGraphLaunch;
  }
  MemcpyRecord copy;
  copy.copy_kind = static_cast<CopyKind>(timeline.memcpys[ref.index()].kind);
  return !analysis::InvolvesHost(copy);
}

CorrelationId CorrelationOf(const RunTimeline& timeline, ItemRef ref) {
  switch (ref.kind()) {
    case ItemKind::kKernel:
      return ref.index() < timeline.kernel_correlation.size() ? CorrelationId(timeline.kernel_correlation[ref.index()])
                                                               : CorrelationId();
    case ItemKind::kMemcpy: return CorrelationId(timeline.memcpys[ref.index()].correlation);
    case ItemKind::kMemset: return CorrelationId(timeline.memsets[ref.index()].correlation);
    case ItemKind::kGraphLaunch: return CorrelationId(timeline.graph_launches[ref.index()].correlation);
    default: return CorrelationId();
  }
}

// Merges the device's stream rows into one walk in start order (ties in kind, index order, as the
// analysis sorts them) and feeds it to analysis::ActivitySweep, which owns the gap arithmetic.
class DeviceMerge {
 public:
  DeviceMerge(const RunTimeline& timeline, DeviceId device) : timeline_(timeline), device_(device) {
    for (const Lane& lane : timeline.lanes) {
      if (lane.kind != LaneKind::kStream || lane.device != device) continue;
      for (const RowItems& row : lane.rows) cursors_.push_back({&row, lane.stream, 0});
    }
    head_start_.resize(cursors_.size());
    head_ref_.resize(cursors_.size());
    for (size_t c = 0; c < cursors_.size(); ++c) Advance(c);
  }

  DeviceGaps Run() {
    analysis::ActivitySweep sweep;
    for (size_t c = Earliest(); c != kNone; c = Earliest()) {
      Cursor& cur = cursors_[c];
      const ItemRef ref = ItemRef::FromBits(head_ref_[c]);
      // The viewer's rows do not say which kernels a graph replayed: next_from_graph stays false.
      sweep.Add(cur.row->start_ns(cur.next), cur.row->end_ns(cur.next),
                [&] { return analysis::NextWork{cur.stream, CorrelationOf(timeline_, ref)}; });
      ++cur.next;
      Advance(c);
    }
    return {device_, std::move(sweep).Finish()};
  }

 private:
  static constexpr size_t kNone = SIZE_MAX;

  // The cursor of the earliest next activity: a scan, cheaper than a heap for the few streams of a device.
  size_t Earliest() const {
    size_t best = kNone;
    for (size_t c = 0; c < head_start_.size(); ++c) {
      if (head_start_[c] == INT64_MAX) continue;
      if (best == kNone || head_start_[c] < head_start_[best] ||
          (head_start_[c] == head_start_[best] && head_ref_[c] < head_ref_[best])) {
        best = c;
      }
    }
    return best;
  }

  void Advance(size_t c) {
    Cursor& cur = cursors_[c];
    while (cur.next < cur.row->size() && !IsActivity(timeline_, cur.row->ref(cur.next))) ++cur.next;
    const bool more = cur.next < cur.row->size();
    head_start_[c] = more ? cur.row->start_ns(cur.next) : INT64_MAX;
    head_ref_[c] = more ? cur.row->ref(cur.next).bits() : UINT32_MAX;
  }

  const RunTimeline& timeline_;
  DeviceId device_;
  std::vector<Cursor> cursors_;
  std::vector<int64_t> head_start_;  // per cursor; INT64_MAX when it is done
  std::vector<uint32_t> head_ref_;
};

}  // namespace

DeviceGaps FindDeviceGaps(const RunTimeline& timeline, DeviceId device) { return DeviceMerge(timeline, device).Run(); }

std::vector<ApiCallRecord> LaunchCallsOfGaps(const RunTimeline& timeline, const std::vector<DeviceGaps>& devices) {
  std::unordered_set<int64_t> wanted;
  for (const DeviceGaps& d : devices) {
    for (const analysis::IdleGap& gap : d.activity.gaps) wanted.insert(gap.next_correlation.value());
  }
  std::vector<ApiCallRecord> out;
  for (const Lane& lane : timeline.lanes) {
    if (lane.kind != LaneKind::kHostApi) continue;
    for (const RowItems& row : lane.rows) {
      for (size_t i = 0; i < row.size(); ++i) {
        const int64_t correlation = timeline.api_correlation[row.ref(i).index()];
        if (!wanted.contains(correlation)) continue;
        ApiCallRecord& call = out.emplace_back();
        call.start_ns = row.start_ns(i);
        call.end_ns = row.end_ns(i);
        call.correlation = CorrelationId(correlation);
      }
    }
  }
  return out;
}

}  // namespace nimble::gui
