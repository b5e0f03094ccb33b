// Where an op's outputs can be released on their producer's stream under a stream assignment: the
// first op of the producer's stream that the assignment's stream order and syncs order after every
// reader. The stream rewrite (accelerate/stream_rewrite.h) drops cross-stream outputs there, and the
// memory prediction (analysis/memory_prediction.h) frees them there. Pure functions.
#pragma once

#include <cstdint>
#include <vector>

#include "nimble/core/op_graph.h"
#include "nimble/core/schedule.h"

namespace nimble {

// Per op, the ops that read its outputs (the ends of its data edges), in edge order.
std::vector<std::vector<size_t>> DataReaders(const OpGraph& graph);

// Per op: the op of its stream before which its outputs would be released, the first one after all of
// the op's readers (its data edges' ends) that the assignment's stream order and syncs order after
// each reader; -1 for an op with no reader or no such op, and for every op of an assignment that does
// not cover the graph (streams out of range, syncs that do not point forward).
std::vector<int64_t> ReleasePoints(const OpGraph& graph, const StreamAssignment& assignment);

// For a branch capture that holds values longer (core/capture_order.h): per op, the first op of its
// stream that comes after its last reader in op order, that the stream order and syncs order after
// every reader, and that starts (`start_ns`) at least `delay_ns` after the op and its readers end
// (`end_ns`); -1 where there is none, and for every op when the assignment or the times do not cover
// the graph.
std::vector<int64_t> DelayedReleasePoints(const OpGraph& graph, const StreamAssignment& assignment,
                                          const std::vector<int64_t>& start_ns, const std::vector<int64_t>& end_ns,
                                          int64_t delay_ns);

// For a branch capture choosing which values to hold: per op, how long a reader of its outputs is
// still running, in a simulated run of the capture (`start_ns`, `end_ns`: core/capture_order.h's
// BranchCaptureRun), after the capture would free them without a hold. An allocation of another branch
// that took their memory then would wait that long. Without a hold, outputs read on another stream are
// freed where ReleasePoints says, when that op starts (never, where it has none: 0); the others after
// their last reader in `order` (the capture's op order), when it starts. 0 for an op with no reader;
// every entry 0 when the assignment, the order or the times do not cover the graph.
std::vector<int64_t> ReleaseWaits(const OpGraph& graph, const StreamAssignment& assignment,
                                  const std::vector<int32_t>& order, const std::vector<int64_t>& start_ns,
                                  const std::vector<int64_t>& end_ns);

}  // namespace nimble
