// Memset nodes of a captured graph replaced by kernel nodes doing the same write. cuDNN's fused attention
// zeroes a 4-byte counter with cudaMemsetAsync before each launch, so a captured transformer holds one
// memset node per layer, and in a replay each costs about 1.5 us more than a kernel writing the same
// bytes (bench/results/zoo.md, "Memset nodes"). Private to accelerate/src.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "nimble/core/status.h"

namespace nimble::accelerate {

// Memsets up to this size are replaced; larger ones stay memset nodes (the copy engine's bandwidth).
inline constexpr int64_t kMaxReplacedMemsetBytes = 64 * 1024;

struct MemsetRewrite {
  int32_t replaced = 0;
  int32_t kept = 0;  // too large, an element size other than 1, 2 or 4, or an edge of another type
};

// Replaces each memset node of `graph` (before it is instantiated) that writes at most
// kMaxReplacedMemsetBytes with a fill kernel node on the same dependencies and dependents, when all of
// its edges are default ones. Internal naming the CUDA call when one fails; the graph may then be part
// rewritten, and must be discarded.
StatusOr<MemsetRewrite> ReplaceMemsetNodes(cudaGraph_t graph);

// The memset nodes of `graph`, all counted as kept.
StatusOr<MemsetRewrite> CountMemsetNodes(cudaGraph_t graph);

}  // namespace nimble::accelerate
