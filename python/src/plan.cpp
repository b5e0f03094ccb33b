// The plan step over a graph the Python side built (the training front end's torch.fx graph):
// workflow::PlanGraph, returned as a dict of plain lists. No GPU needed.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "nimble/workflow/plan_graph.h"
#include "status_errors.h"

namespace nimble::python {
namespace py = pybind11;

namespace {

py::dict PlanStreams(int32_t num_ops, const std::vector<std::pair<int32_t, int32_t>>& edges, int32_t max_streams,
                     std::vector<std::string> names) {
  std::vector<OpEdge> op_edges;
  op_edges.reserve(edges.size());
  for (const auto& [src, dst] : edges) op_edges.push_back({OpId(src), OpId(dst)});
  workflow::GraphPlanOptions options;
  options.max_streams = max_streams;
  options.names = std::move(names);
  const workflow::GraphPlan plan = Unwrap(workflow::PlanGraph(num_ops, op_edges, options));
  std::vector<int32_t> op_stream;
  op_stream.reserve(plan.multi.op_stream.size());
  for (StreamId s : plan.multi.op_stream) op_stream.push_back(s.value());
  std::vector<std::pair<int32_t, int32_t>> syncs;
  syncs.reserve(plan.multi.syncs.size());
  for (const OpEdge& e : plan.multi.syncs) syncs.emplace_back(e.src.value(), e.dst.value());
  py::dict out;
  out["op_stream"] = op_stream;
  out["streams"] = plan.multi.num_streams;
  out["syncs"] = syncs;
  out["width_streams"] = plan.width_streams;
  out["logical_concurrency"] = plan.logical_concurrency;
  out["reduced_edges"] = plan.reduced_edges;
  out["matched_edges"] = plan.matched_edges;
  return out;
}

}  // namespace

void BindPlan(py::module_& m) {
  m.def("plan_streams", &PlanStreams, py::arg("num_ops"), py::arg("edges"), py::arg("max_streams") = 0,
        py::arg("names") = std::vector<std::string>{},
        "The stream assignment (the paper's Algorithm 1) of a DAG given as ops 0..num_ops-1 and (src, dst) "
        "edges: op_stream, streams, syncs (cross-stream edges of the reduced graph), logical_concurrency.");
}

}  // namespace nimble::python
