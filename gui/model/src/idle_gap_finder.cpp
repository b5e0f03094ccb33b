#include "nimble/gui/idle_gap_finder.h"

#include <algorithm>
#include <unordered_set>

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

// Walks a device's activity in start order (ties in kind, index order, as the analysis sorts it),
// tracking the end of the union so far; a start past it closes a gap.
class GapSweep {
 public:
  GapSweep(const RunTimeline& timeline, DeviceId device) : timeline_(timeline) {
    out_.device = device;
    for (const Lane& lane : timeline.lanes) {
      if (lane.kind != LaneKind::kStream || lane.device != device) continue;
      for (const RowItems& row : lane.rows) cursors_.push_back({&row, lane.stream, 0});
    }
    head_start_.resize(cursors_.size());
    head_ref_.resize(cursors_.size());
    for (size_t c = 0; c < cursors_.size(); ++c) Advance(c);
  }

  DeviceGaps Run() {
    for (size_t c = Earliest(); c != kNone; c = Earliest()) {
      Cursor& cur = cursors_[c];
      Visit(cur.row->start_ns(cur.next), cur.row->end_ns(cur.next), cur.stream, ItemRef::FromBits(head_ref_[c]));
      ++cur.next;
      Advance(c);
    }
    if (any_ && covered_until_ns_ < out_.span_end_ns) AddGap(out_.span_end_ns, nullptr, ItemRef());
    return std::move(out_);
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

  void Visit(int64_t start_ns, int64_t end_ns, StreamId stream, ItemRef ref) {
    if (!any_) {
      out_.span_start_ns = covered_until_ns_ = start_ns;
      out_.span_end_ns = end_ns;
      any_ = true;
    }
    out_.span_end_ns = std::max(out_.span_end_ns, end_ns);
    // Empty activity marks the span but neither covers time nor ends a gap (the analysis clips it away).
    if (end_ns <= start_ns) return;
    if (start_ns > covered_until_ns_) AddGap(start_ns, &stream, ref);
    if (end_ns > covered_until_ns_) {
      out_.active_ns += end_ns - std::max(covered_until_ns_, start_ns);
      covered_until_ns_ = end_ns;
    }
  }

  // The gap from the union's end to `end_ns`; `next_stream` is null for the trailing gap.
  void AddGap(int64_t end_ns, const StreamId* next_stream, ItemRef next) {
    analysis::IdleGap gap;
    gap.start_ns = covered_until_ns_;
    gap.dur_ns = end_ns - covered_until_ns_;
    if (next_stream != nullptr) {
      gap.next_stream = *next_stream;
      gap.next_correlation = CorrelationOf(timeline_, next);
    }
    out_.gaps.push_back(gap);
  }

  const RunTimeline& timeline_;
  std::vector<Cursor> cursors_;
  std::vector<int64_t> head_start_;  // per cursor; INT64_MAX when it is done
  std::vector<uint32_t> head_ref_;
  DeviceGaps out_;
  bool any_ = false;
  int64_t covered_until_ns_ = 0;
};

}  // namespace

DeviceGaps FindDeviceGaps(const RunTimeline& timeline, DeviceId device) { return GapSweep(timeline, device).Run(); }

void ClassifyGaps(const analysis::GapClassifier& classifier, DeviceGaps& gaps) {
  for (analysis::IdleGap& gap : gaps.gaps) {
    // Only the trailing gap (up to the span's end) has no next work; every other gap ends where
    // non-empty work starts, before the span's end.
    const bool trailing = &gap == &gaps.gaps.back() && gap.start_ns + gap.dur_ns == gaps.span_end_ns;
    gap.cause = classifier.Classify(gap.start_ns, gap.start_ns + gap.dur_ns,
                                    trailing ? std::nullopt : std::optional(gap.next_correlation));
  }
}

std::vector<ApiCallRecord> LaunchCallsOfGaps(const RunTimeline& timeline, const std::vector<DeviceGaps>& devices) {
  std::unordered_set<int64_t> wanted;
  for (const DeviceGaps& d : devices) {
    for (const analysis::IdleGap& gap : d.gaps) wanted.insert(gap.next_correlation.value());
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
