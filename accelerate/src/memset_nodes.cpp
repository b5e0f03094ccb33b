#include "memset_nodes.h"

#include <string>
#include <vector>

#include "cuda_status.h"
#include "fill_kernel.h"

namespace nimble::accelerate {
namespace {

struct Edges {
  std::vector<cudaGraphNode_t> nodes;
  std::vector<cudaGraphEdgeData> data;
  bool lossy = false;  // the runtime refused to count them without their data: an edge of another type
};

Status Call(cudaError_t code, const char* what) { return CudaStatus(code, std::string("memset rewrite: ") + what); }

// The node's incoming (`incoming`) or outgoing edges.
StatusOr<Edges> EdgesOf(cudaGraphNode_t node, bool incoming) {
  auto list = [&](cudaGraphNode_t* nodes, cudaGraphEdgeData* data, size_t* count) {
    return incoming ? cudaGraphNodeGetDependencies(node, nodes, data, count)
                    : cudaGraphNodeGetDependentNodes(node, nodes, data, count);
  };
  const char* what = incoming ? "cudaGraphNodeGetDependencies" : "cudaGraphNodeGetDependentNodes";
  size_t count = 0;
  Edges edges;
  const cudaError_t counted = list(nullptr, nullptr, &count);
  if (counted == cudaErrorLossyQuery) {
    (void)cudaGetLastError();  // not an error here: the node is kept
    edges.lossy = true;
    return edges;
  }
  NIMBLE_RETURN_IF_ERROR(Call(counted, what));
  edges.nodes.resize(count);
  edges.data.resize(count);
  if (count > 0) NIMBLE_RETURN_IF_ERROR(Call(list(edges.nodes.data(), edges.data.data(), &count), what));
  edges.nodes.resize(count);
  edges.data.resize(count);
  return edges;
}

bool AllDefault(const Edges& edges) {
  if (edges.lossy) return false;
  for (const cudaGraphEdgeData& e : edges.data) {
    if (e.type != cudaGraphDependencyTypeDefault || e.from_port != 0 || e.to_port != 0) return false;
  }
  return true;
}

// Replaces `node` when it qualifies; whether it did.
StatusOr<bool> ReplaceOne(cudaGraph_t graph, cudaGraphNode_t node) {
  cudaMemsetParams memset{};
  NIMBLE_RETURN_IF_ERROR(Call(cudaGraphMemsetNodeGetParams(node, &memset), "cudaGraphMemsetNodeGetParams"));
  const int64_t bytes = static_cast<int64_t>(memset.width * memset.height * memset.elementSize);
  kernels::FillNode fill;
  if (bytes > kMaxReplacedMemsetBytes || !kernels::MakeFillNode(memset, &fill)) return false;
  NIMBLE_ASSIGN_OR_RETURN(const Edges in, EdgesOf(node, /*incoming=*/true));
  NIMBLE_ASSIGN_OR_RETURN(const Edges out, EdgesOf(node, /*incoming=*/false));
  if (!AllDefault(in) || !AllDefault(out)) return false;
  cudaGraphNode_t kernel = nullptr;
  if (cudaGraphAddKernelNode(&kernel, graph, in.nodes.data(), in.nodes.size(), &fill.params) != cudaSuccess) {
    (void)cudaGetLastError();  // e.g. no image of the kernel for this GPU: the graph is as it was, the memset stays
    return false;
  }
  if (!out.nodes.empty()) {
    const std::vector<cudaGraphNode_t> from(out.nodes.size(), kernel);
    NIMBLE_RETURN_IF_ERROR(Call(cudaGraphAddDependencies(graph, from.data(), out.nodes.data(), out.data.data(),
                                                         out.nodes.size()),
                                "cudaGraphAddDependencies"));
  }
  NIMBLE_RETURN_IF_ERROR(Call(cudaGraphDestroyNode(node), "cudaGraphDestroyNode"));
  return true;
}

StatusOr<std::vector<cudaGraphNode_t>> MemsetNodes(cudaGraph_t graph) {
  size_t count = 0;
  NIMBLE_RETURN_IF_ERROR(Call(cudaGraphGetNodes(graph, nullptr, &count), "cudaGraphGetNodes"));
  std::vector<cudaGraphNode_t> nodes(count);
  if (count > 0) NIMBLE_RETURN_IF_ERROR(Call(cudaGraphGetNodes(graph, nodes.data(), &count), "cudaGraphGetNodes"));
  nodes.resize(count);
  std::vector<cudaGraphNode_t> memsets;
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type{};
    NIMBLE_RETURN_IF_ERROR(Call(cudaGraphNodeGetType(node, &type), "cudaGraphNodeGetType"));
    if (type == cudaGraphNodeTypeMemset) memsets.push_back(node);
  }
  return memsets;
}

}  // namespace

StatusOr<MemsetRewrite> ReplaceMemsetNodes(cudaGraph_t graph) {
  NIMBLE_ASSIGN_OR_RETURN(const std::vector<cudaGraphNode_t> memsets, MemsetNodes(graph));
  MemsetRewrite rewrite;
  for (cudaGraphNode_t node : memsets) {
    NIMBLE_ASSIGN_OR_RETURN(const bool replaced, ReplaceOne(graph, node));
    ++(replaced ? rewrite.replaced : rewrite.kept);
  }
  return rewrite;
}

StatusOr<MemsetRewrite> CountMemsetNodes(cudaGraph_t graph) {
  NIMBLE_ASSIGN_OR_RETURN(const std::vector<cudaGraphNode_t> memsets, MemsetNodes(graph));
  MemsetRewrite rewrite;
  rewrite.kept = static_cast<int32_t>(memsets.size());
  return rewrite;
}

StatusOr<MemsetRewrite> RewriteMemsetNodes(cudaGraph_t graph, bool keep) {
  StatusOr<MemsetRewrite> rewrite = keep ? CountMemsetNodes(graph) : ReplaceMemsetNodes(graph);
  if (!rewrite.ok()) (void)cudaGetLastError();
  return rewrite;
}

StatusOr<MemsetRewrite> RewriteMemsetNodes(std::uintptr_t raw_graph, bool keep) {
  if (raw_graph == 0) {
    return InvalidArgument("no graph to rewrite (a null cudaGraph_t): capture with keep_graph=True and rewrite "
                           "before instantiate()");
  }
  return RewriteMemsetNodes(reinterpret_cast<cudaGraph_t>(raw_graph), keep);
}

}  // namespace nimble::accelerate
