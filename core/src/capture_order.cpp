#include "nimble/core/capture_order.h"

#include <algorithm>
#include <numeric>

namespace nimble {

BranchCaptureTimes BranchCaptureRun(const OpGraph& graph, const StreamAssignment& assignment,
                                    const std::vector<int64_t>& op_ns) {
  const size_t n = graph.ops.size();
  if (assignment.op_stream.size() != n || (!op_ns.empty() && op_ns.size() != n)) return {};
  std::vector<std::vector<size_t>> preds(n);
  for (const OpEdge& edge : graph.edges) {
    const int64_t src = edge.src.value(), dst = edge.dst.value();
    if (src < 0 || dst < 0 || static_cast<size_t>(dst) >= n || src >= dst) return {};
    preds[static_cast<size_t>(dst)].push_back(static_cast<size_t>(src));
  }
  BranchCaptureTimes times;
  times.start_ns.assign(n, 0);
  times.end_ns.assign(n, 0);
  std::vector<int64_t> stream_free(static_cast<size_t>(std::max(assignment.num_streams, 0)), 0);
  for (size_t op = 0; op < n; ++op) {  // op order is topological: every edge points forward
    const int64_t stream = assignment.op_stream[op].value();
    if (stream < 0 || stream >= assignment.num_streams) return {};
    int64_t start = stream_free[static_cast<size_t>(stream)];
    for (size_t pred : preds[op]) start = std::max(start, times.end_ns[pred]);
    times.start_ns[op] = start;
    times.end_ns[op] = start + (op_ns.empty() ? 1 : std::max<int64_t>(op_ns[op], 1));
    stream_free[static_cast<size_t>(stream)] = times.end_ns[op];  // the stream runs its ops one after another
  }
  return times;
}

std::vector<int32_t> BranchCaptureOrder(const OpGraph& graph, const StreamAssignment& assignment,
                                        const std::vector<int64_t>& op_ns) {
  const BranchCaptureTimes times = BranchCaptureRun(graph, assignment, op_ns);
  if (times.start_ns.size() != graph.ops.size()) return {};
  std::vector<int32_t> order(graph.ops.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    return times.start_ns[static_cast<size_t>(a)] < times.start_ns[static_cast<size_t>(b)];
  });
  return order;
}

}  // namespace nimble
