// Planning for nimble-accelerate: the paper's assignment via the analysis library, and a workload for
// its simulator. Without kernel records the GPU share of an op is a guess from its output size (the
// assumption the report names when measurement and prediction disagree).
#include "accelerate_plan.h"

#include <algorithm>
#include <cctype>

#include "nimble/accelerate/stream_rewrite.h"
#include "nimble/analysis/matching.h"
#include "nimble/analysis/stream_assignment.h"
#include "nimble/analysis/transitive_reduction.h"
#include "nimble/store/run_reader.h"

namespace nimble::cli {

StatusOr<std::vector<int64_t>> OpTimesFromDatabase(const std::string& db, const OpGraph& graph) {
  NIMBLE_ASSIGN_OR_RETURN(auto reader, store::RunReader::Open(db));
  NIMBLE_ASSIGN_OR_RETURN(std::vector<RunInfo> runs, reader->Runs());
  for (auto run = runs.rbegin(); run != runs.rend(); ++run) {
    auto stored = reader->LoadGraph(run->id);
    if (!stored.ok() || stored->ops.size() != graph.ops.size()) continue;
    bool same = true;
    for (size_t i = 0; i < graph.ops.size() && same; ++i) same = stored->ops[i].kind == graph.ops[i].kind;
    if (!same) continue;
    std::vector<int64_t> times;
    for (const Op& op : stored->ops) times.push_back(op.gpu_time_ns);
    if (std::any_of(times.begin(), times.end(), [](int64_t t) { return t > 0; })) return times;
  }
  return NotFound(db + ": no run of this model (same ops, with GPU times); record one with nimble-prof model.pt");
}

double EstimatedShare(const std::string& output_shapes, int64_t device_threads) {
  int64_t elements = 1;
  bool any = false;
  int64_t number = -1;
  for (char c : output_shapes) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      number = (number < 0 ? 0 : number) * 10 + (c - '0');
      continue;
    }
    if (number >= 0) {
      elements *= number;
      any = true;
      number = -1;
    }
    if (c == ']' && any) break;  // first output only
  }
  if (!any || device_threads <= 0) return 1.0;
  return std::clamp(static_cast<double>(elements) / static_cast<double>(device_threads), 0.05, 1.0);
}

StatusOr<Plan> MakePlan(const OpGraph& graph, int32_t max_streams, int64_t device_threads) {
  Plan plan;
  NIMBLE_ASSIGN_OR_RETURN(plan.dag, analysis::Dag::FromOpGraph(graph));
  const analysis::Dag reduced = analysis::TransitiveReduction(plan.dag);
  const analysis::Matching matching = analysis::MaximumMatching(reduced);
  plan.reduced_edges = reduced.Edges();
  plan.matched_edges = matching.size;
  plan.multi = analysis::AssignStreams(reduced, matching);
  plan.width_streams = plan.multi.num_streams;
  plan.multi = LimitStreams(plan.multi, max_streams, plan.reduced_edges);
  plan.single = analysis::SingleStream(plan.dag);
  for (const Op& op : graph.ops) {
    std::vector<analysis::SimKernel> kernels;
    if (op.gpu_time_ns > 0) kernels.push_back({op.gpu_time_ns, EstimatedShare(op.output_shapes, device_threads)});
    plan.workload.op_kernels.push_back(std::move(kernels));
  }
  NIMBLE_ASSIGN_OR_RETURN(plan.prediction, analysis::Predict(plan.dag, plan.workload, plan.multi));
  return plan;
}

}  // namespace nimble::cli
