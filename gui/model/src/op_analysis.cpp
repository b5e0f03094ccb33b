#include "nimble/gui/op_analysis.h"

#include <algorithm>

#include "nimble/analysis/critical_path.h"
#include "nimble/analysis/dag.h"
#include "nimble/analysis/op_weights.h"
#include "nimble/analysis/stream_plan.h"

namespace nimble::gui {
namespace {

// Start, end, device and stream of every kernel of the stream lanes, by kernel index.
std::vector<analysis::KernelSpan> KernelSpansOf(const RunTimeline& timeline) {
  std::vector<analysis::KernelSpan> spans(static_cast<size_t>(timeline.kernel_count));
  for (const Lane& lane : timeline.lanes) {
    if (lane.kind != LaneKind::kStream) continue;
    for (const RowItems& row : lane.rows) {
      for (size_t i = 0; i < row.size(); ++i) {
        const ItemRef ref = row.ref(i);
        if (ref.kind() == ItemKind::kKernel) spans[ref.index()] = {row.start_ns(i), row.end_ns(i), lane.device, lane.stream};
      }
    }
  }
  return spans;
}

DeviceId FirstGpuDevice(const RunTimeline& timeline) {
  for (const Lane& lane : timeline.lanes) {
    if (lane.kind == LaneKind::kStream) return lane.device;
  }
  return DeviceId();
}

// Each op's row from its kernels in the weighing iteration, as analysis::WeighOps picks them.
Status WeighRows(const OpGraph& graph, std::span<const KernelAttribution> attribution, const RunTimeline& timeline,
                 OpAnalysis& out) {
  if (attribution.empty()) {
    out.device = FirstGpuDevice(timeline);
    const std::vector<int64_t> weights = analysis::OpWeights(graph);
    for (size_t v = 0; v < weights.size(); ++v) out.ops[v].gpu_time_ns = weights[v];
    return OkStatus();
  }
  const std::vector<analysis::KernelSpan> spans = KernelSpansOf(timeline);
  const std::optional<analysis::TimeWindow> window =
      out.window ? std::optional(analysis::TimeWindow{out.window->first, out.window->second}) : std::nullopt;
  NIMBLE_ASSIGN_OR_RETURN(const analysis::OpKernels weighed,
                          analysis::WeighOps(static_cast<int32_t>(graph.ops.size()), attribution, spans, window));
  out.device = weighed.device;
  for (size_t v = 0; v < out.ops.size(); ++v) {
    OpRow& op = out.ops[v];
    const auto kernels = weighed.of(v);
    op.gpu_time_ns = weighed.op_time_ns[v];
    op.kernels = static_cast<int32_t>(kernels.size());
    if (kernels.empty()) continue;
    const analysis::KernelSpan& first = spans[static_cast<size_t>(kernels.front().value())];
    op.first_start_ns = first.start_ns;
    op.measured_stream = first.stream;
    for (KernelIndex k : kernels) op.last_end_ns = std::max(op.last_end_ns, spans[static_cast<size_t>(k.value())].end_ns);
  }
  return OkStatus();
}

// The weighing iteration (analysis::WeighingWindow of the timeline's iterations), when there is a GPU.
std::optional<std::pair<int64_t, int64_t>> WeighingWindowOf(const RunTimeline& timeline) {
  if (!FirstGpuDevice(timeline).valid()) return std::nullopt;
  std::vector<analysis::TimeWindow> iterations;
  iterations.reserve(timeline.iterations.size());
  for (const auto& [start_ns, end_ns] : timeline.iterations) iterations.push_back({start_ns, end_ns});
  const std::optional<analysis::TimeWindow> window = analysis::WeighingWindow(iterations);
  if (!window) return std::nullopt;
  return std::pair(window->start_ns, window->end_ns);
}

// Per stream lane and row, the items of ops on the critical path.
void BuildCriticalRows(const std::vector<uint8_t>& on_path, RunTimeline& timeline) {
  for (Lane& lane : timeline.lanes) {
    lane.critical.clear();
    if (lane.kind != LaneKind::kStream) continue;
    for (const RowItems& row : lane.rows) {
      RowItems& critical = lane.critical.emplace_back();
      for (size_t i = 0; i < row.size(); ++i) {
        const ItemRef ref = row.ref(i);
        if (ref.kind() != ItemKind::kKernel) continue;
        const int32_t op = timeline.kernel_op[ref.index()];
        if (op >= 0 && on_path[static_cast<size_t>(op)]) critical.Add(row.start_ns(i), row.end_ns(i), row.label(i), ref);
      }
      critical.Finish();
    }
  }
}

}  // namespace

StatusOr<OpAnalysis> AnalyzeOps(const OpGraph& graph, std::span<const KernelAttribution> attribution,
                                const std::optional<StreamAssignment>& stored_assignment, RunTimeline& timeline) {
  NIMBLE_ASSIGN_OR_RETURN(const analysis::Dag dag, analysis::Dag::FromOpGraph(graph));
  OpAnalysis out;
  for (const Op& op : graph.ops) {
    OpRow& row = out.ops.emplace_back();
    row.op = op.id;
    row.name = op.name;
    row.kind = op.kind;
    row.output_shapes = op.output_shapes;
  }
  out.window = WeighingWindowOf(timeline);
  NIMBLE_RETURN_IF_ERROR(WeighRows(graph, attribution, timeline, out));
  std::vector<int64_t> weights;
  for (const OpRow& op : out.ops) weights.push_back(op.gpu_time_ns);
  NIMBLE_ASSIGN_OR_RETURN(const analysis::CriticalPath path, analysis::ComputeCriticalPath(dag, weights));
  out.critical_path = path.ops;
  out.critical_path_ns = path.length_ns;
  std::vector<uint8_t> on_path(graph.ops.size(), 0);
  for (size_t i = 0; i < path.ops.size(); ++i) {
    on_path[static_cast<size_t>(path.ops[i].value())] = 1;
    out.ops[static_cast<size_t>(path.ops[i].value())].critical_position = static_cast<int32_t>(i);
  }
  analysis::PlanOptions plan;
  plan.concurrency = false;  // the viewer shows no width
  const StreamAssignment assignment = stored_assignment ? *stored_assignment : analysis::PlanStreams(dag, plan).multi;
  out.assignment_stored = stored_assignment.has_value();
  out.assigned_streams = assignment.num_streams;
  out.assignment_syncs = assignment.syncs.size();
  for (size_t v = 0; v < assignment.op_stream.size() && v < out.ops.size(); ++v) {
    out.ops[v].assigned_stream = assignment.op_stream[v];
  }
  timeline.kernel_op.assign(static_cast<size_t>(timeline.kernel_count), -1);
  for (const KernelAttribution& a : attribution) timeline.kernel_op[static_cast<size_t>(a.kernel.value())] = a.op.value();
  BuildCriticalRows(on_path, timeline);
  return out;
}

}  // namespace nimble::gui
