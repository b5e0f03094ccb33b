#include "nimble/analysis/activity_sweep.h"

#include <utility>

namespace nimble::analysis {

void ActivitySweep::Start(int64_t start_ns) {
  out_.span = {start_ns, start_ns};
  covered_until_ns_ = start_ns;
  started_ = true;
}

void ActivitySweep::AddGap(int64_t end_ns, const std::optional<NextWork>& next) {
  IdleGap& gap = out_.gaps.emplace_back();
  gap.start_ns = covered_until_ns_;
  gap.dur_ns = end_ns - covered_until_ns_;
  if (next.has_value()) {
    gap.next_stream = next->stream;
    gap.next_correlation = next->correlation;
    gap.next_from_graph = next->from_graph;
  }
}

ActivityUnion ActivitySweep::Finish() && {
  if (started_ && covered_until_ns_ < out_.span.end_ns) {
    AddGap(out_.span.end_ns, std::nullopt);
    out_.trailing_gap = true;
  }
  return std::move(out_);
}

void ClassifyGaps(const GapClassifier& classifier, ActivityUnion& activity) {
  for (size_t i = 0; i < activity.gaps.size(); ++i) {
    IdleGap& gap = activity.gaps[i];
    const bool trailing = activity.trailing_gap && i + 1 == activity.gaps.size();
    gap.cause = classifier.Classify(gap.start_ns, gap.start_ns + gap.dur_ns,
                                    trailing ? std::nullopt : std::optional(gap.next_correlation));
  }
}

}  // namespace nimble::analysis
