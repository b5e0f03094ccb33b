#include "nimble/analysis/stream_plan.h"

#include <set>
#include <utility>

#include "nimble/analysis/matching.h"
#include "nimble/analysis/stream_assignment.h"

namespace nimble::analysis {

StreamPlan PlanStreams(const Dag& dag, const PlanOptions& options) {
  StreamPlan plan;
  const Dag reduced = TransitiveReduction(dag, options.reduction);
  const Matching matching = MaximumMatching(reduced);
  plan.reduced_edges = reduced.Edges();
  plan.matched_edges = matching.size;
  plan.multi = AssignStreams(reduced, matching);
  plan.width_streams = plan.multi.num_streams;
  plan.multi = LimitStreams(plan.multi, options.max_streams, plan.reduced_edges);
  plan.single = SingleStream(dag);
  if (options.concurrency) plan.concurrency = ComputeConcurrency(reduced, matching);
  return plan;
}

StreamAssignment LimitStreams(const StreamAssignment& assignment, int32_t max_streams,
                              const std::vector<OpEdge>& reduced_edges) {
  if (max_streams <= 0 || assignment.num_streams <= max_streams) return assignment;
  StreamAssignment limited;
  limited.num_streams = max_streams;
  for (StreamId stream : assignment.op_stream) limited.op_stream.push_back(StreamId(stream.value() % max_streams));
  std::set<std::pair<int32_t, int32_t>> seen;
  for (const OpEdge& edge : reduced_edges) {
    if (limited.op_stream[edge.src.value()] == limited.op_stream[edge.dst.value()]) continue;
    if (seen.insert({edge.src.value(), edge.dst.value()}).second) limited.syncs.push_back(edge);
  }
  return limited;
}

}  // namespace nimble::analysis
