#include "nimble/analysis/stream_assignment.h"

namespace nimble::analysis {

StreamAssignment AssignStreams(const Dag& reduced, const Matching& matching) {
  StreamAssignment out;
  out.op_stream.assign(static_cast<size_t>(reduced.num_nodes()), StreamId());
  for (int32_t head : reduced.topological_order()) {
    if (matching.prev[static_cast<size_t>(head)] >= 0) continue;  // not the first op of its chain
    const StreamId stream(out.num_streams++);
    for (int32_t v = head; v >= 0; v = matching.next[static_cast<size_t>(v)]) {
      out.op_stream[static_cast<size_t>(v)] = stream;
    }
  }
  for (const OpEdge& e : reduced.Edges()) {
    if (out.op_stream[static_cast<size_t>(e.src.value())] != out.op_stream[static_cast<size_t>(e.dst.value())]) {
      out.syncs.push_back(e);
    }
  }
  return out;
}

StreamAssignment AssignStreams(const Dag& dag, const ReductionOptions& options) {
  const Dag reduced = TransitiveReduction(dag, options);
  return AssignStreams(reduced, MaximumMatching(reduced));
}

StreamAssignment SingleStream(const Dag& dag) {
  StreamAssignment out;
  out.op_stream.assign(static_cast<size_t>(dag.num_nodes()), StreamId(0));
  out.num_streams = dag.num_nodes() > 0 ? 1 : 0;
  return out;
}

}  // namespace nimble::analysis
