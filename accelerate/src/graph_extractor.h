// Turning the frozen graph into an OpGraph: which nodes are ops (op_kinds.h and the operator schema
// decide), data edges from each op to the nearest ops producing its inputs through folded nodes, and
// order edges between ops whose effects touch aliasing values (torch::jit::AliasDb). One thread.
#pragma once

#include "nimble/accelerate/loaded_model.h"
#include "nimble/core/op_graph.h"
#include "nimble/core/status.h"
#include "shape_run.h"

namespace nimble::accelerate {

// Fills model.op_nodes (op id -> node) and returns the validated graph, ops in node order (which is
// topological). FailedPrecondition, naming the file and what the graph holds, when no node is an op.
StatusOr<OpGraph> ExtractOpGraph(LoadedModel::Impl& model, const ShapeRun& run);

}  // namespace nimble::accelerate
