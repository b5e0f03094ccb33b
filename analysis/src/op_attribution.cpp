#include "nimble/analysis/op_attribution.h"

#include <algorithm>
#include <unordered_map>

#include "nimble/core/median.h"

namespace nimble::analysis {
namespace {

struct Launch {
  int64_t start_ns = 0;
  ThreadId thread;
};

// Brackets of one thread, by start; they never overlap, so one search finds the only candidate.
class BracketIndex {
 public:
  explicit BracketIndex(std::span<const OpBracket> brackets) {
    for (const OpBracket& b : brackets) by_thread_[b.thread.value()].push_back(b);
    for (auto& [thread, list] : by_thread_) {
      std::sort(list.begin(), list.end(), [](const OpBracket& a, const OpBracket& b) { return a.start_ns < b.start_ns; });
    }
  }

  OpId Find(const Launch& launch) const {
    const auto it = by_thread_.find(launch.thread.value());
    if (it == by_thread_.end()) return OpId();
    const auto& list = it->second;
    auto after = std::upper_bound(list.begin(), list.end(), launch.start_ns,
                                  [](int64_t t, const OpBracket& b) { return t < b.start_ns; });
    if (after == list.begin()) return OpId();
    const OpBracket& b = *std::prev(after);
    return launch.start_ns <= b.end_ns ? b.op : OpId();
  }

 private:
  std::unordered_map<int64_t, std::vector<OpBracket>> by_thread_;
};

}  // namespace

OpAttribution AttributeKernels(const Trace& trace, int32_t num_ops, int32_t external_kind,
                               std::span<const OpBracket> brackets) {
  std::unordered_map<int64_t, int64_t> external_of;  // correlation id -> external id
  for (const ExternalCorrelation& e : trace.external_correlations) {
    if (e.external_kind == external_kind) external_of[e.correlation.value()] = e.external_id;
  }
  std::unordered_map<int64_t, Launch> launch_of;  // correlation id -> API call, for the fallback
  if (!brackets.empty()) {
    for (const ApiCallRecord& a : trace.api_calls) launch_of[a.correlation.value()] = Launch{a.start_ns, a.thread};
  }
  const BracketIndex index(brackets);
  OpAttribution out;
  for (size_t i = 0; i < trace.kernels.size(); ++i) {
    const KernelRecord& k = trace.kernels[i];
    ++out.kernel_count;
    out.kernel_ns += k.dur_ns();
    OpId op;
    if (auto it = external_of.find(k.correlation.value()); it != external_of.end()) {
      const int64_t id = it->second - 1;
      if (id >= 0 && id < num_ops) {
        op = OpId(static_cast<int32_t>(id));
        ++out.by_external_id;
      } else {
        ++out.foreign_ids;
      }
    }
    if (!op.valid()) {
      if (auto it = launch_of.find(k.correlation.value()); it != launch_of.end()) op = index.Find(it->second);
      if (op.valid()) ++out.by_launch_time;
    }
    if (!op.valid()) {
      ++out.unattributed;
      out.unattributed_ns += k.dur_ns();
      continue;
    }
    out.kernels.push_back(KernelAttribution{op, KernelIndex(static_cast<int64_t>(i))});
  }
  return out;
}

std::vector<int64_t> MedianOpTimes(const Trace& trace, std::span<const KernelAttribution> attribution,
                                   int32_t num_ops, std::span<const TimeWindow> windows) {
  const size_t ops = static_cast<size_t>(std::max(num_ops, 0));
  std::vector<TimeWindow> sorted(windows.begin(), windows.end());
  std::sort(sorted.begin(), sorted.end(), [](const TimeWindow& a, const TimeWindow& b) { return a.start_ns < b.start_ns; });
  const size_t slots = std::max<size_t>(sorted.size(), 1);
  std::vector<std::vector<int64_t>> per_window(slots, std::vector<int64_t>(ops, 0));
  for (const KernelAttribution& a : attribution) {
    const auto kernel = static_cast<size_t>(a.kernel.value());
    const auto op = static_cast<size_t>(a.op.value());
    if (kernel >= trace.kernels.size() || op >= ops) continue;
    const KernelRecord& k = trace.kernels[kernel];
    size_t slot = 0;
    if (!sorted.empty()) {
      auto after = std::upper_bound(sorted.begin(), sorted.end(), k.start_ns,
                                    [](int64_t t, const TimeWindow& w) { return t < w.start_ns; });
      if (after == sorted.begin() || k.start_ns >= std::prev(after)->end_ns) continue;  // between windows
      slot = static_cast<size_t>(std::prev(after) - sorted.begin());
    }
    per_window[slot][op] += k.dur_ns();
  }
  std::vector<int64_t> out(ops, 0);
  std::vector<int64_t> samples(slots);
  for (size_t op = 0; op < ops; ++op) {
    for (size_t w = 0; w < slots; ++w) samples[w] = per_window[w][op];
    out[op] = Median(samples);
  }
  return out;
}

std::vector<StatEntry> OpAttribution::ToStats() const {
  using enum Severity;
  const Severity severity = unattributed == 0 ? kInfo : kWarning;
  return {
      {"attribution.kernels", kernel_count, kInfo, "kernels recorded"},
      {"attribution.by_external_id", by_external_id, kInfo, "kernels attributed by the op id pushed around their launch"},
      {"attribution.by_launch_time", by_launch_time, kInfo,
       "kernels whose launch carried no op id, attributed by the op bracket their launch fell in"},
      {"attribution.unattributed", unattributed, severity, "kernels attributed to no op"},
      {"attribution.unattributed_ns", unattributed_ns, severity, "GPU time of the kernels attributed to no op"},
      {"attribution.kernel_ns", kernel_ns, kInfo, "GPU time of all kernels (sum of durations)"},
      {"attribution.foreign_ids", foreign_ids, foreign_ids == 0 ? kInfo : kWarning,
       "kernels whose pushed id names no op of the graph"},
  };
}

}  // namespace nimble::analysis
