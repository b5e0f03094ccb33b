#include "nimble/analysis/idle_gaps.h"

#include <algorithm>

#include "intervals.h"

namespace nimble::analysis {
namespace {

bool OnDevice(DeviceId record_device, DeviceId device) { return !record_device.valid() || record_device == device; }

}  // namespace

std::string_view GapCauseName(GapCause cause) {
  switch (cause) {
    case GapCause::kHostLaunchLate: return "host_launch_late";
    case GapCause::kSynchronization: return "synchronization";
    case GapCause::kMemoryCopy: return "memory_copy";
    case GapCause::kOther: return "other";
  }
  return "other";
}

void GapTotals::Add(const IdleGap& gap) {
  dur_ns[static_cast<size_t>(gap.cause)] += gap.dur_ns;
  ++count[static_cast<size_t>(gap.cause)];
}

void GapTotals::Add(const GapTotals& other) {
  for (size_t i = 0; i < kNumGapCauses; ++i) {
    dur_ns[i] += other.dur_ns[i];
    count[i] += other.count[i];
  }
}

bool InvolvesHost(const MemcpyRecord& copy) {
  switch (copy.copy_kind) {
    case CopyKind::kDtoD:
    case CopyKind::kDtoA:
    case CopyKind::kAtoD:
    case CopyKind::kAtoA:
    case CopyKind::kPtoP:
      return false;
    default:
      return true;  // host copies, and unknown kinds: a copy the GPU cannot compute through
  }
}

std::vector<IdleGap> LongestGaps(std::vector<IdleGap> gaps, size_t n) {
  std::stable_sort(gaps.begin(), gaps.end(), [](const IdleGap& a, const IdleGap& b) {
    return a.dur_ns != b.dur_ns ? a.dur_ns > b.dur_ns : a.start_ns < b.start_ns;
  });
  if (gaps.size() > n) gaps.resize(n);
  return gaps;
}

GapClassifier::GapClassifier(const Trace& trace, DeviceId device) {
  for (const ApiCallRecord& call : trace.api_calls) {
    // Runtime and driver records may share a correlation id: the outer (earlier) call is the launch.
    auto [it, inserted] = api_start_ns_.try_emplace(call.correlation.value(), call.start_ns);
    if (!inserted) it->second = std::min(it->second, call.start_ns);
  }
  std::vector<Interval> syncs;
  for (const SyncRecord& s : trace.syncs) {
    if (OnDevice(s.device, device)) syncs.push_back({s.start_ns, s.end_ns});
  }
  std::vector<Interval> copies;
  for (const MemcpyRecord& c : trace.memcpys) {
    if (OnDevice(c.device, device) && InvolvesHost(c)) copies.push_back({c.start_ns, c.end_ns});
  }
  for (const Interval& s : MergeIntervals(std::move(syncs))) syncs_.push_back({s.start_ns, s.end_ns});
  for (const Interval& s : MergeIntervals(std::move(copies))) host_copies_.push_back({s.start_ns, s.end_ns});
}

bool GapClassifier::Overlaps(const std::vector<Span>& merged, int64_t start_ns, int64_t end_ns) {
  auto it = std::upper_bound(merged.begin(), merged.end(), start_ns,
                             [](int64_t t, const Span& s) { return t < s.end_ns; });
  return it != merged.end() && it->start_ns < end_ns;
}

GapCause GapClassifier::Classify(int64_t start_ns, int64_t end_ns, std::optional<CorrelationId> next) const {
  if (Overlaps(host_copies_, start_ns, end_ns)) return GapCause::kMemoryCopy;
  if (Overlaps(syncs_, start_ns, end_ns)) return GapCause::kSynchronization;
  if (next.has_value()) {
    const auto it = api_start_ns_.find(next->value());
    if (it != api_start_ns_.end() && it->second > start_ns) return GapCause::kHostLaunchLate;
  }
  return GapCause::kOther;
}

}  // namespace nimble::analysis
