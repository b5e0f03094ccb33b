#include "nimble/analysis/stream_plan.h"

#include <algorithm>
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

namespace {

// Longest path in ops from any source to each op over `edges` (Kahn's order); ops on a cycle, which a
// DAG has none of, would keep depth 0.
std::vector<int64_t> Depths(size_t num_ops, const std::vector<OpEdge>& edges) {
  std::vector<std::vector<size_t>> out(num_ops);
  std::vector<int32_t> indegree(num_ops, 0);
  for (const OpEdge& edge : edges) {
    out[static_cast<size_t>(edge.src.value())].push_back(static_cast<size_t>(edge.dst.value()));
    ++indegree[static_cast<size_t>(edge.dst.value())];
  }
  std::vector<int64_t> depth(num_ops, 0);
  std::vector<size_t> ready;
  for (size_t op = 0; op < num_ops; ++op) {
    if (indegree[op] == 0) ready.push_back(op);
  }
  while (!ready.empty()) {
    const size_t op = ready.back();
    ready.pop_back();
    for (size_t next : out[op]) {
      depth[next] = std::max(depth[next], depth[op] + 1);
      if (--indegree[next] == 0) ready.push_back(next);
    }
  }
  return depth;
}

}  // namespace

StreamAssignment LimitStreams(const StreamAssignment& assignment, int32_t max_streams,
                              const std::vector<OpEdge>& reduced_edges) {
  if (max_streams <= 0 || assignment.num_streams <= max_streams) return assignment;
  return PackStreams(assignment, reduced_edges, max_streams);
}

StreamAssignment PackStreams(const StreamAssignment& assignment, const std::vector<OpEdge>& reduced_edges,
                             int32_t max_streams) {
  if (max_streams <= 0) max_streams = std::max(assignment.num_streams, 1);
  // Each stream's span in time, approximated by depth: the longest path (in ops) from a source to the
  // op, as if every op took one step. Op order would not do: a model lists parallel branches one
  // after the other, so their spans in op order never overlap although they run side by side.
  // A lane also runs its ops in op order (the order they are launched in), so a stream may follow
  // another on a lane only if it starts after it in op order as well: otherwise its ops would queue
  // behind the earlier stream's later ones.
  const std::vector<int64_t> depth = Depths(assignment.op_stream.size(), reduced_edges);
  const auto streams = static_cast<size_t>(assignment.num_streams);
  std::vector<int64_t> first(streams, -1), last(streams, -1), first_op(streams, -1), last_op(streams, -1);
  for (size_t op = 0; op < assignment.op_stream.size(); ++op) {
    const auto s = static_cast<size_t>(assignment.op_stream[op].value());
    if (first[s] < 0 || depth[op] < first[s]) first[s] = depth[op];
    last[s] = std::max(last[s], depth[op]);
    if (first_op[s] < 0) first_op[s] = static_cast<int64_t>(op);
    last_op[s] = static_cast<int64_t>(op);
  }
  std::vector<size_t> order;
  for (size_t s = 0; s < streams; ++s) {
    if (first[s] >= 0) order.push_back(s);
  }
  // Op 0's stream first, so that it keeps stream 0.
  const size_t origin = assignment.op_stream.empty() ? 0 : static_cast<size_t>(assignment.op_stream[0].value());
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if ((a == origin) != (b == origin)) return a == origin;
    return first[a] < first[b];
  });
  // Interval partitioning onto the lanes: a span goes to the lane that became free last before it
  // starts (a lane reused without any overlap), or when every lane is still busy, to the one that frees
  // first (the least overlap, so the least concurrency lost).
  std::vector<int64_t> lane_end, lane_end_op;
  std::vector<int32_t> lane_of(streams, 0);
  for (size_t s : order) {
    int32_t best = -1;
    for (size_t lane = 0; lane < lane_end.size(); ++lane) {
      const bool free = lane_end[lane] < first[s] && lane_end_op[lane] < first_op[s];
      if (free && (best < 0 || lane_end[lane] > lane_end[static_cast<size_t>(best)])) best = static_cast<int32_t>(lane);
    }
    if (best < 0 && static_cast<int32_t>(lane_end.size()) < max_streams) {
      best = static_cast<int32_t>(lane_end.size());
      lane_end.push_back(-1);
      lane_end_op.push_back(-1);
    }
    if (best < 0) {
      best = static_cast<int32_t>(std::min_element(lane_end.begin(), lane_end.end()) - lane_end.begin());
    }
    lane_of[s] = best;
    lane_end[static_cast<size_t>(best)] = std::max(lane_end[static_cast<size_t>(best)], last[s]);
    lane_end_op[static_cast<size_t>(best)] = std::max(lane_end_op[static_cast<size_t>(best)], last_op[s]);
  }
  StreamAssignment limited;
  limited.num_streams = static_cast<int32_t>(lane_end.size());
  for (StreamId stream : assignment.op_stream) limited.op_stream.push_back(StreamId(lane_of[static_cast<size_t>(stream.value())]));
  std::set<std::pair<int32_t, int32_t>> seen;
  for (const OpEdge& edge : reduced_edges) {
    if (limited.op_stream[edge.src.value()] == limited.op_stream[edge.dst.value()]) continue;
    if (seen.insert({edge.src.value(), edge.dst.value()}).second) limited.syncs.push_back(edge);
  }
  return limited;
}

}  // namespace nimble::analysis
