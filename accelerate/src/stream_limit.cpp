// Folding an assignment onto fewer streams. Replay speed does not depend on the number of capture
// streams (a CUDA graph keeps only the dependencies), but each stream costs a handle, workspaces
// and allocator pools during capture, so a cap keeps preparation small.
#include <set>
#include <utility>

#include "nimble/accelerate/stream_rewrite.h"

namespace nimble {

StreamAssignment LimitStreams(const StreamAssignment& assignment, int32_t max_streams,
                              const std::vector<OpEdge>& reduced_edges) {
  if (max_streams <= 0 || assignment.num_streams <= max_streams) return assignment;
  StreamAssignment limited;
  limited.num_streams = max_streams;
  for (StreamId stream : assignment.op_stream) limited.op_stream.push_back(StreamId(stream.value() % max_streams));
  // Edges of the reduced graph now inside one stream are ordered by that stream; the rest still sync.
  std::set<std::pair<int32_t, int32_t>> seen;
  for (const OpEdge& edge : reduced_edges) {
    if (limited.op_stream[edge.src.value()] == limited.op_stream[edge.dst.value()]) continue;
    if (seen.insert({edge.src.value(), edge.dst.value()}).second) limited.syncs.push_back(edge);
  }
  return limited;
}

}  // namespace nimble
