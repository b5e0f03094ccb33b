// The union of one device's GPU activity and its holes, in one pass over activities in start order:
// active time, span, and idle gaps with the work that ended each. TimelineAnalyzer and the viewer's
// compact rows both feed it. Invariant: gaps are disjoint, in time order, and with active_ns fill the
// span. A sweep is a plain value for one thread; ClassifyGaps only reads its classifier.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "nimble/analysis/idle_gaps.h"
#include "nimble/analysis/time_window.h"
#include "nimble/core/ids.h"

namespace nimble::analysis {

// The work that ended a gap: what the gap's cause is judged by.
struct NextWork {
  StreamId stream;
  CorrelationId correlation;
  bool from_graph = false;  // replayed from a CUDA graph
};

struct ActivityUnion {
  TimeWindow span;            // the window swept, or the first activity's start to the last end
  int64_t active_ns = 0;      // length of the union of the activity
  std::vector<IdleGap> gaps;  // in time order; cause kOther until ClassifyGaps
  bool trailing_gap = false;  // the last gap runs to the span's end with no work after it
  bool empty() const { return span.end_ns <= span.start_ns; }
};

class ActivitySweep {
 public:
  // Over the activities' own span: from the first one's start (empty ones included) to the last end.
  ActivitySweep() = default;
  // Over `window`; every activity must lie inside it (clip first). Gaps run from its start to its end.
  explicit ActivitySweep(TimeWindow window) : covered_until_ns_(window.start_ns), started_(true) { out_.span = window; }

  // Adds [start_ns, end_ns); starts must not decrease from call to call. An empty activity marks the span
  // but neither covers time nor ends a gap. `next()` returns the activity's NextWork and is called only
  // when the activity ends a gap, so that callers need not look up correlation ids for every activity.
  // Inline: the viewer feeds it 10 million kernels while loading.
  template <typename NextFn>
  void Add(int64_t start_ns, int64_t end_ns, NextFn&& next) {
    if (!started_) Start(start_ns);
    out_.span.end_ns = std::max(out_.span.end_ns, end_ns);
    if (end_ns <= start_ns) return;
    if (start_ns > covered_until_ns_) AddGap(start_ns, next());
    if (end_ns > covered_until_ns_) {
      out_.active_ns += end_ns - std::max(covered_until_ns_, start_ns);
      covered_until_ns_ = end_ns;
    }
  }

  // Closes the gap from the union's end to the span's end, if any, and hands the result over.
  ActivityUnion Finish() &&;

 private:
  void Start(int64_t start_ns);
  void AddGap(int64_t end_ns, const std::optional<NextWork>& next);

  ActivityUnion out_;
  int64_t covered_until_ns_ = 0;  // end of the union so far
  bool started_ = false;
};

// Sets each gap's cause; the trailing gap has no next work to blame.
void ClassifyGaps(const GapClassifier& classifier, ActivityUnion& activity);

}  // namespace nimble::analysis
