#include "nimble/workflow/plan_graph.h"

#include <utility>

#include "nimble/analysis/dag.h"
#include "nimble/analysis/stream_plan.h"

namespace nimble::workflow {

StatusOr<GraphPlan> PlanGraph(int32_t num_ops, std::span<const OpEdge> edges, const GraphPlanOptions& options) {
  if (options.max_streams < 0) return InvalidArgument("max_streams " + std::to_string(options.max_streams));
  if (!options.names.empty() && options.names.size() != static_cast<size_t>(num_ops)) {
    return InvalidArgument(std::to_string(options.names.size()) + " names for " + std::to_string(num_ops) + " ops");
  }
  analysis::NodeNamer namer;
  if (!options.names.empty()) {
    namer = [&options](int32_t v) { return options.names[static_cast<size_t>(v)]; };
  }
  NIMBLE_ASSIGN_OR_RETURN(analysis::Dag dag, analysis::Dag::FromEdges(num_ops, edges, namer));
  analysis::PlanOptions plan_options;
  plan_options.max_streams = options.max_streams;
  analysis::StreamPlan plan = analysis::PlanStreams(dag, plan_options);
  GraphPlan result;
  result.multi = std::move(plan.multi);
  result.width_streams = plan.width_streams;
  result.logical_concurrency = plan.concurrency.width;
  result.reduced_edges = static_cast<int32_t>(plan.reduced_edges.size());
  result.matched_edges = plan.matched_edges;
  return result;
}

}  // namespace nimble::workflow
