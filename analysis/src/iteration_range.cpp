// The iteration range a trace marks, when the user names none.
#include "nimble/analysis/timeline.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

namespace nimble::analysis {
namespace {

// torch.profiler's own step marker (imported "ProfilerStep#N" ranges): it wins over texts that repeat
// more often, such as the CPU ops of every step.
constexpr const char* kProfilerStep = "ProfilerStep";

}  // namespace

std::string DetectIterationRange(const Trace& trace) {
  std::unordered_map<int32_t, std::vector<const NvtxRange*>> by_text;
  for (const NvtxRange& r : trace.ranges) {
    if (r.text.valid() && r.end_ns > r.start_ns) by_text[r.text.value()].push_back(&r);
  }
  const StringId profiler_step = trace.strings.Find(kProfilerStep);
  std::string best;
  size_t best_count = 1;
  int64_t best_total_ns = 0;
  for (auto& [text, ranges] : by_text) {
    std::sort(ranges.begin(), ranges.end(), [](auto* a, auto* b) { return a->start_ns < b->start_ns; });
    bool overlaps = false;
    int64_t total_ns = 0;
    for (size_t i = 0; i < ranges.size(); ++i) {
      total_ns += ranges[i]->dur_ns();
      if (i > 0 && ranges[i]->start_ns < ranges[i - 1]->end_ns) overlaps = true;
    }
    if (overlaps || ranges.size() < 2) continue;
    if (profiler_step.valid() && text == profiler_step.value()) return kProfilerStep;
    const bool better = ranges.size() > best_count || (ranges.size() == best_count && total_ns > best_total_ns);
    if (better) {
      best = trace.strings.Get(StringId(text));
      best_count = ranges.size();
      best_total_ns = total_ns;
    }
  }
  return best;
}

}  // namespace nimble::analysis
