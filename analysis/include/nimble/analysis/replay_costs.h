// What a CUDA graph replay costs beyond its kernels, read from recorded replays (kernels that carry a
// graph id): the time from the launch call to the first kernel, and the GPU-side gap between a kernel
// and the one that waited for it, on one stream and across streams. These are the replay costs the
// prediction (prediction.h) simulates; recorded on the device, they replace its estimates.
// Pure function of the trace.
#pragma once

#include <cstdint>
#include <string>

#include "nimble/analysis/prediction.h"
#include "nimble/core/status.h"
#include "nimble/core/trace.h"

namespace nimble::analysis {

struct ReplayCosts {
  int64_t launch_ns = 0;              // launch call start to the replay's first kernel start (median)
  int64_t node_gap_ns = 0;            // a kernel's start after its same-stream predecessor's end (median)
  int64_t cross_stream_gap_ns = 0;    // the same when the predecessor ran on another stream (median)
  int32_t replays = 0;                // graph launches seen
  int32_t node_gaps = 0;              // samples behind node_gap_ns
  int32_t cross_stream_gaps = 0;      // samples behind cross_stream_gap_ns
  // What one small memset node adds to a replay, and one fill kernel node that replaces it (timed
  // without a collector; 0: not measured, and why in memset_costs_error).
  int64_t memset_node_ns = 0;
  int64_t fill_node_ns = 0;
  std::string memset_costs_error;
};

// Per replay (kernels sharing the launch's correlation id), in start order, each kernel's predecessor
// is the kernel that ended last before it started: right for graphs whose dependent kernels do not
// overlap unrelated work (chains, and chains of fork-join diamonds, as calibration graphs are). Replays
// of one kernel, and kernels that started before any other ended, give no gap. NotFound when the trace
// has no replayed kernels; a kind of gap never seen is 0 with a sample count of 0.
StatusOr<ReplayCosts> MeasureReplayCosts(const Trace& trace);

// The prediction's replay costs from a calibration: the launch, each node's gap, a cross-stream
// dependency's delay beyond it, and a capture's memset nodes (those replaced by fill kernels and those
// kept, as the capture counts them), which no op's recorded kernels account for.
void ApplyReplayCosts(const ReplayCosts& costs, int32_t memset_nodes_replaced, int32_t memset_nodes_kept,
                      PredictionOptions* options);

}  // namespace nimble::analysis
