// The memset-node rewrite for a graph captured outside Nimble (the Python package's training capture,
// torch.cuda.CUDAGraph(keep_graph=True)), given as the integer raw_cuda_graph() returns, so that no
// CUDA type crosses the public API. What the rewrite does and why: accelerate/src/memset_nodes.h.
#pragma once

#include <cstdint>

#include "nimble/core/status.h"

namespace nimble::accelerate {

struct MemsetRewrite {
  int32_t replaced = 0;
  // Left as they were: too large, nothing to write, an element size other than 1, 2 or 4, an edge of
  // another type, or a kernel node the runtime would not add (no image of it for this GPU).
  int32_t kept = 0;
};

// `raw_graph`: a cudaGraph_t, captured and not yet instantiated. With `keep`, its memset nodes are only
// counted. InvalidArgument for 0; else as the rewrite (memset_nodes.h), the runtime's last error cleared
// on failure.
StatusOr<MemsetRewrite> RewriteMemsetNodes(std::uintptr_t raw_graph, bool keep);

}  // namespace nimble::accelerate
