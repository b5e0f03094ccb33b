// The one way a loaded model.nimble becomes captured graphs, shared by Runner and TensorRunner: the
// float32 precision the outputs were checked with is set first (cuBLAS and cuDNN pick their math when
// the kernels are launched, i.e. at capture), then one capture per bucket, the largest inputs first,
// all into one memory pool (unless RunnerOptions::share_pool is off); and the choice of a bucket for
// the shapes of a call's inputs. Private to accelerate/src.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "nimble/accelerate/aot_graph.h"
#include "nimble/accelerate/artifact.h"
#include "nimble/accelerate/runner.h"
#include "nimble/core/status.h"

namespace nimble::accelerate {

// One graph per bucket of `artifact`, in the meta's order. The buckets replay one at a time (the
// runners are not thread-safe, and TensorRunner orders a call on a new stream after the last), which
// is what sharing a pool needs. Largest first, so the smaller ones fit into blocks it freed. A graph's
// inputs live outside the pool, and its outputs are never handed to a graph captured after it; but a
// later graph's outputs may lie in an earlier one's intermediate blocks, so a replay of any bucket may
// overwrite the outputs the last replay of another left (Runner copies them out at once; TensorRunner
// says so to its callers).
StatusOr<std::vector<std::unique_ptr<AotGraph>>> CaptureArtifact(const LoadedArtifact& artifact,
                                                                 const std::string& path,
                                                                 const RunnerOptions& options);

// The bucket whose inputs have exactly `shapes`. With one bucket always 0 (the graph's own check then
// names the shape it wants); with several, InvalidArgument naming the shapes given and every bucket's.
StatusOr<size_t> FindBucket(const std::vector<std::unique_ptr<AotGraph>>& graphs,
                            const std::vector<std::vector<int64_t>>& shapes, const std::string& path);

// "1x3x224x224" per input, ", " between inputs.
std::string BucketShapesText(const std::vector<TensorSpec>& inputs);

}  // namespace nimble::accelerate
