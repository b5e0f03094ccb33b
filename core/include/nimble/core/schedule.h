// A stream assignment of a model's ops: which stream each op runs on, and which edges of the
// reduced graph need an event record/wait because they cross streams.
// Invariant: op_stream.size() == number of ops; streams are numbered 0..num_streams-1.
#pragma once

#include <cstdint>
#include <vector>

#include "nimble/core/ids.h"
#include "nimble/core/op_graph.h"

namespace nimble {

struct StreamAssignment {
  std::vector<StreamId> op_stream;  // indexed by OpId
  int32_t num_streams = 0;
  std::vector<OpEdge> syncs;        // cross-stream edges of the transitive reduction
  friend bool operator==(const StreamAssignment&, const StreamAssignment&) = default;
};

}  // namespace nimble
