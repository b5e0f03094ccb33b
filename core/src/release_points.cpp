#include "nimble/core/release_points.h"

#include <algorithm>

namespace nimble {
namespace {

// Where each op output crossing streams can be released on its producer's stream. Vector clocks over
// the assignment: clock[op][s] is the position on stream s (its count of ops before) of the last op of
// s that op is ordered after, by stream order and the syncs (-1: none), so op x is ordered after op r
// iff clock[x][stream(r)] >= position(r).
class StreamOrder {
 public:
  StreamOrder(const StreamAssignment& assignment, size_t num_ops)
      : streams_(static_cast<size_t>(std::max(assignment.num_streams, 1))), stream_(num_ops), position_(num_ops),
        clock_(num_ops * streams_, -1), on_stream_(streams_) {
    std::vector<std::vector<size_t>> waits(num_ops);
    for (const OpEdge& sync : assignment.syncs) {
      waits[static_cast<size_t>(sync.dst.value())].push_back(static_cast<size_t>(sync.src.value()));
    }
    for (size_t op = 0; op < num_ops; ++op) {
      const auto s = static_cast<size_t>(assignment.op_stream[op].value());
      stream_[op] = s;
      position_[op] = static_cast<int32_t>(on_stream_[s].size());
      int32_t* clock = &clock_[op * streams_];
      if (!on_stream_[s].empty()) std::copy_n(&clock_[on_stream_[s].back() * streams_], streams_, clock);
      for (size_t src : waits[op]) {
        for (size_t t = 0; t < streams_; ++t) clock[t] = std::max(clock[t], clock_[src * streams_ + t]);
      }
      clock[s] = position_[op];
      on_stream_[s].push_back(op);
    }
  }

  // The first op of `producer`'s stream after `after` (in op order) that is ordered after every op of
  // `readers` and that `accept` takes; -1 when there is none.
  template <typename Accept>
  int64_t ReleasePoint(size_t producer, size_t after, const std::vector<size_t>& readers, const Accept& accept) const {
    const std::vector<size_t>& lane = on_stream_[stream_[producer]];
    for (auto it = std::upper_bound(lane.begin(), lane.end(), after); it != lane.end(); ++it) {
      const int32_t* clock = &clock_[*it * streams_];
      const bool ordered = std::all_of(readers.begin(), readers.end(),
                                       [&](size_t r) { return clock[stream_[r]] >= position_[r]; });
      if (ordered && accept(*it)) return static_cast<int64_t>(*it);
    }
    return -1;
  }

 private:
  size_t streams_;
  std::vector<size_t> stream_;
  std::vector<int32_t> position_;
  std::vector<int32_t> clock_;
  std::vector<std::vector<size_t>> on_stream_;
};

}  // namespace

std::vector<std::vector<size_t>> DataReaders(const OpGraph& graph) {
  std::vector<std::vector<size_t>> readers(graph.ops.size());
  for (const OpEdge& edge : graph.edges) {
    if (edge.kind == EdgeKind::kData) readers[static_cast<size_t>(edge.src.value())].push_back(static_cast<size_t>(edge.dst.value()));
  }
  return readers;
}

namespace {

bool Covers(const OpGraph& graph, const StreamAssignment& assignment) {
  const auto n = static_cast<int64_t>(graph.ops.size());
  return
      static_cast<int64_t>(assignment.op_stream.size()) == n &&
      std::all_of(assignment.op_stream.begin(), assignment.op_stream.end(),
                  [&](StreamId s) { return s.value() >= 0 && s.value() < assignment.num_streams; }) &&
      std::all_of(assignment.syncs.begin(), assignment.syncs.end(), [&](const OpEdge& e) {
        return e.src.value() >= 0 && e.src.value() < e.dst.value() && e.dst.value() < n;
      });
}

}  // namespace

std::vector<int64_t> ReleasePoints(const OpGraph& graph, const StreamAssignment& assignment) {
  if (!Covers(graph, assignment)) return std::vector<int64_t>(graph.ops.size(), -1);
  const StreamOrder order(assignment, graph.ops.size());
  const std::vector<std::vector<size_t>> readers = DataReaders(graph);
  std::vector<int64_t> points(graph.ops.size(), -1);
  for (size_t op = 0; op < readers.size(); ++op) {
    if (readers[op].empty()) continue;
    points[op] = order.ReleasePoint(op, *std::max_element(readers[op].begin(), readers[op].end()), readers[op],
                                    [](size_t) { return true; });
  }
  return points;
}

std::vector<int64_t> DelayedReleasePoints(const OpGraph& graph, const StreamAssignment& assignment,
                                          const std::vector<int64_t>& start_ns, const std::vector<int64_t>& end_ns,
                                          int64_t delay_ns) {
  const size_t n = graph.ops.size();
  std::vector<int64_t> points(n, -1);
  if (!Covers(graph, assignment) || start_ns.size() != n || end_ns.size() != n) return points;
  const StreamOrder order(assignment, n);
  const std::vector<std::vector<size_t>> readers = DataReaders(graph);
  for (size_t op = 0; op < n; ++op) {
    int64_t free_ns = end_ns[op];
    size_t last = op;
    for (size_t r : readers[op]) {
      free_ns = std::max(free_ns, end_ns[r]);
      last = std::max(last, r);
    }
    const int64_t due_ns = free_ns + delay_ns;
    points[op] = order.ReleasePoint(op, last, readers[op], [&](size_t q) { return start_ns[q] >= due_ns; });
  }
  return points;
}

std::vector<int64_t> ReleaseWaits(const OpGraph& graph, const StreamAssignment& assignment,
                                  const std::vector<int32_t>& order, const std::vector<int64_t>& start_ns,
                                  const std::vector<int64_t>& end_ns) {
  const size_t n = graph.ops.size();
  std::vector<int64_t> waits(n, 0);
  if (!Covers(graph, assignment) || start_ns.size() != n || end_ns.size() != n || order.size() != n) return waits;
  std::vector<int64_t> position(n, -1);  // each op's place in the capture
  for (size_t i = 0; i < n; ++i) {
    if (order[i] < 0 || static_cast<size_t>(order[i]) >= n || position[static_cast<size_t>(order[i])] >= 0) return waits;
    position[static_cast<size_t>(order[i])] = static_cast<int64_t>(i);
  }
  const std::vector<int64_t> points = ReleasePoints(graph, assignment);
  const std::vector<std::vector<size_t>> readers = DataReaders(graph);
  for (size_t op = 0; op < n; ++op) {
    if (readers[op].empty()) continue;
    const StreamId stream = assignment.op_stream[op];
    const bool crosses = std::any_of(readers[op].begin(), readers[op].end(),
                                     [&](size_t r) { return assignment.op_stream[r] != stream; });
    int64_t freed_ns = 0;
    if (crosses) {
      if (points[op] < 0) continue;  // never freed in the capture
      freed_ns = start_ns[static_cast<size_t>(points[op])];
    } else {
      const size_t last = *std::max_element(readers[op].begin(), readers[op].end(),
                                            [&](size_t a, size_t b) { return position[a] < position[b]; });
      freed_ns = start_ns[last];
    }
    int64_t busy_until = 0;
    for (size_t r : readers[op]) busy_until = std::max(busy_until, end_ns[r]);
    waits[op] = std::max<int64_t>(0, busy_until - freed_ns);
  }
  return waits;
}

}  // namespace nimble
