// The stream rewrite: a copy of a frozen model's graph in which every op runs on its assigned stream.
// nimble::fork_streams opens the graph, nimble::set_stream precedes an op only where the stream
// changes, nimble::record_event / nimble::wait_event bracket exactly the assignment's syncs (the
// cross-stream edges of the reduced graph), and nimble::join_streams closes it. An op output read on
// another stream than its producer's is
// - released on its producer's stream (nimble::release, the default): held until the first op of that
//   stream that the assignment's syncs order after every reader, and dropped right before it, after its
//   waits. The memory goes back to the producer's stream at a point in that stream's order where no
//   reader can still be running, so the allocator reuses it there at once. A value with no such point,
//   or whose memory a view may share (by alias analysis, or as the shape run saw storage shared), is
//   recorded instead; one that may share memory with a graph input, output or constant is neither
//   released nor recorded (the run never frees it);
// - marked as used on the reader's stream right after each such read (nimble::record_stream): the
//   caching allocator reuses its memory once the capture's dependencies order that read before the new
//   user;
// - or held until the join (memory never reused within the run).
// The frozen model is left untouched. Not thread-safe (one model, one thread).
#pragma once

#include <cstdint>
#include <vector>

#include "nimble/accelerate/loaded_model.h"
#include "nimble/core/op_graph.h"
#include "nimble/core/release_points.h"  // ReleasePoints: where the rewrite releases
#include "nimble/core/schedule.h"
#include "nimble/core/status.h"

namespace nimble::accelerate {

enum class CrossStreamFree {
  kOnProducerStream,  // nimble::release where the producer's stream is ordered after every reader
  kAfterLastReader,   // nimble::record_stream after each cross-stream read
  kAtJoin,            // every such output held by nimble::join_streams
};

struct RewriteOptions {
  CrossStreamFree cross_stream_free = CrossStreamFree::kOnProducerStream;
  // nimble::op_begin(op) ahead of each op's stream switch, waits and releases: a traced capture
  // (CaptureOptions::trace_allocations) then knows which op each allocator request belongs to. The
  // operator does nothing otherwise; artifacts are written from unmarked rewrites.
  bool mark_ops = false;
  // Empty, or bytes per stream of the assignment: nimble::seed_pool right after nimble::fork_streams
  // allocates and frees a block of that size on each stream with a non-zero entry when the graph is
  // captured, so that the capture's pool starts with one segment of that size per stream (sized by
  // analysis::ChoosePoolSeeds) instead of the 20 MiB segments the stream's requests would each start.
  // A branch capture has one capture stream to seed: only the first entry may be non-zero (sized by
  // analysis::ChooseOneStreamSeed from the branch capture's own requests).
  std::vector<int64_t> pool_seeds;
  // Empty, or a permutation of the ops (core/capture_order.h, for a branch capture): the ops are moved
  // into this order, each with the non-op nodes between it and the op before it in the graph (constants
  // go first). Where that cannot be done safely (a non-op node with side effects or blocks, a random op,
  // or a value used before the move would define it), the graph keeps its order and RewriteSummary::reordered says so.
  std::vector<int32_t> op_order;
  // Empty, or per op the op before which its outputs are released at the latest
  // (core/release_points.h DelayedReleasePoints; -1: none): a nimble::release there keeps them alive
  // until then, so that a branch capture reuses their memory only later. It never frees anything sooner.
  std::vector<int64_t> delayed_releases;
};

struct RewriteSummary {
  int32_t num_streams = 0;
  int32_t num_events = 0;        // == syncs, one event each
  int32_t set_stream_nodes = 0;
  int32_t record_nodes = 0;
  int32_t wait_nodes = 0;
  int32_t kept_values = 0;       // op outputs held until the join: tensors, or lists/tuples holding them
  int32_t recorded_values = 0;   // nimble::record_stream nodes (one per cross-stream read and output)
  int32_t released_values = 0;   // nimble::release nodes (one per output released on its producer's stream)
  int32_t seeded_streams = 0;    // streams nimble::seed_pool seeds
  bool reordered = false;        // the ops are in RewriteOptions::op_order
  int32_t delayed_values = 0;    // nimble::release nodes of RewriteOptions::delayed_releases
};

struct ScheduledModel {
  LoadedModel model;  // a new TorchScript module whose forward is the rewritten graph
  RewriteSummary summary;
};

// `graph` and `frozen` come from one LoadModelGraph call; `assignment` covers graph's ops (ops in
// node order, syncs pointing forward). Refuses (FailedPrecondition) a graph that still reads module
// attributes, and reports a rewritten graph that fails torch's lint as Internal.
StatusOr<ScheduledModel> RewriteForStreams(const LoadedModel& frozen, const OpGraph& graph,
                                           const StreamAssignment& assignment, const RewriteOptions& options = {});

}  // namespace nimble::accelerate
