// Memset nodes of a captured graph replaced by kernel nodes doing the same write: cuDNN's fused attention
// zeroes 4 bytes before each launch, and in a replay a memset node costs about 1.5 us more than a kernel
// writing the same bytes (bench/results/zoo.md, "Memset nodes"). AotGraph, TrainingStep and, through
// nimble/accelerate/memset_rewrite.h, the Python training capture rewrite their graphs so. Private.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "nimble/accelerate/memset_rewrite.h"
#include "nimble/core/status.h"

namespace nimble::accelerate {

// Memsets up to this size are replaced; larger ones stay memset nodes. Only 4-byte memsets were measured
// (bench/diag/memset_node_cost.cu): the bound keeps large fills, such as zeroed buffers, as they were.
inline constexpr int64_t kMaxReplacedMemsetBytes = 64 * 1024;

// Replaces each memset node of `graph` (before it is instantiated) that writes at most
// kMaxReplacedMemsetBytes with a fill kernel node on the same dependencies and dependents, when all of
// its edges are default ones. Only the graph's own nodes are visited, not those of child graphs. A
// failed CUDA call is an error naming it (CudaStatus: Unavailable when out of memory, else Internal);
// the graph may then be part rewritten, and must be discarded.
StatusOr<MemsetRewrite> ReplaceMemsetNodes(cudaGraph_t graph);

// The memset nodes of `graph`, all counted as kept.
StatusOr<MemsetRewrite> CountMemsetNodes(cudaGraph_t graph);

// ReplaceMemsetNodes, or with `keep` CountMemsetNodes; on failure the runtime's last error is cleared
// too, so that no later launch check reports it.
StatusOr<MemsetRewrite> RewriteMemsetNodes(cudaGraph_t graph, bool keep);

}  // namespace nimble::accelerate
