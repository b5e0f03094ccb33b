// The plan step, in one place for every front end: op DAG -> transitive reduction G' -> maximum
// matching M -> stream assignment (the paper's Algorithm 1), optionally folded onto fewer streams,
// with the logical concurrency and the single-stream schedule beside it. `nimble-prof report`, the
// accelerate workflow and the viewer all call PlanStreams. Pure functions; thread-safe on distinct inputs.
#pragma once

#include <cstdint>
#include <vector>

#include "nimble/analysis/concurrency.h"
#include "nimble/analysis/dag.h"
#include "nimble/analysis/transitive_reduction.h"
#include "nimble/core/op_graph.h"
#include "nimble/core/schedule.h"

namespace nimble::analysis {

struct PlanOptions {
  ReductionOptions reduction;
  int32_t max_streams = 0;   // fold the assignment onto at most this many streams; 0: no cap
  bool concurrency = true;   // also compute the width and a maximum antichain
};

struct StreamPlan {
  std::vector<OpEdge> reduced_edges;  // G'
  int32_t matched_edges = 0;          // |M|
  int32_t width_streams = 0;          // streams of the assignment before the cap
  StreamAssignment multi;             // Algorithm 1, capped by max_streams; syncs = cross-stream edges of G'
  StreamAssignment single;            // every op on stream 0, no sync
  Concurrency concurrency;            // empty when not asked for
};

StreamPlan PlanStreams(const Dag& dag, const PlanOptions& options = {});

// Folds an assignment onto at most `max_streams` streams. Each stream's span (the depths of its first
// and last op, depth being the longest path in ops from a source: time as if every op took one step)
// is packed onto a lane the way intervals are partitioned: onto a lane already free by then (in depth
// and in op order, the order a lane launches its ops in) when there is one, otherwise onto the lane that
// frees first. Streams that follow one another in both share a lane; with ops of unequal durations that
// can still cost some overlap, which the prediction simulates. Op 0's stream stays stream 0; edges of
// `reduced_edges` that end up inside one stream need no sync any more. Replay speed does not depend on
// the number of capture streams (a CUDA graph keeps only the dependencies), but each stream costs a
// handle, workspaces and allocator pools during capture, so a cap keeps preparation small.
StreamAssignment LimitStreams(const StreamAssignment& assignment, int32_t max_streams,
                              const std::vector<OpEdge>& reduced_edges);

// The same packing without a cap (max_streams <= 0) or with one: streams whose spans never overlap
// share a lane, so the assignment keeps its concurrency, as far as depth and op order tell it, on fewer
// streams. Each capture stream costs the caching allocator segments of its own;
// fewer streams is less memory.
StreamAssignment PackStreams(const StreamAssignment& assignment, const std::vector<OpEdge>& reduced_edges,
                             int32_t max_streams = 0);

}  // namespace nimble::analysis
