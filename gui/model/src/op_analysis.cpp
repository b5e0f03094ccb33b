#include "nimble/gui/op_analysis.h"

#include <algorithm>

#include "nimble/analysis/critical_path.h"
#include "nimble/analysis/dag.h"
#include "nimble/analysis/stream_assignment.h"

namespace nimble::gui {
namespace {

struct KernelBrief {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  DeviceId device;
  StreamId stream;
};

// Start, end, device and stream of every attributed kernel, by kernel index (others stay empty).
StatusOr<std::vector<KernelBrief>> BriefsOf(const RunTimeline& timeline, std::span<const KernelAttribution> attribution,
                                            int32_t num_ops) {
  std::vector<KernelBrief> briefs(static_cast<size_t>(timeline.kernel_count));
  std::vector<uint8_t> wanted(static_cast<size_t>(timeline.kernel_count), 0);
  for (const KernelAttribution& a : attribution) {
    if (a.op.value() < 0 || a.op.value() >= num_ops) {
      return InvalidArgument("kernel attribution names op " + std::to_string(a.op.value()) + ", but the graph has " +
                             std::to_string(num_ops) + " ops");
    }
    if (a.kernel.value() < 0 || a.kernel.value() >= timeline.kernel_count) {
      return InvalidArgument("kernel attribution of op " + std::to_string(a.op.value()) + " names kernel " +
                             std::to_string(a.kernel.value()) + ", which the run does not have");
    }
    wanted[static_cast<size_t>(a.kernel.value())] = 1;
  }
  for (const Lane& lane : timeline.lanes) {
    if (lane.kind != LaneKind::kStream) continue;
    for (const RowItems& row : lane.rows) {
      for (size_t i = 0; i < row.size(); ++i) {
        const ItemRef ref = row.ref(i);
        if (ref.kind() != ItemKind::kKernel || !wanted[ref.index()]) continue;
        briefs[ref.index()] = {row.start_ns(i), row.end_ns(i), lane.device, lane.stream};
      }
    }
  }
  return briefs;
}

DeviceId FirstGpuDevice(const RunTimeline& timeline) {
  for (const Lane& lane : timeline.lanes) {
    if (lane.kind == LaneKind::kStream) return lane.device;
  }
  return DeviceId();
}

// Weighs every op by its kernels starting in the window, as analysis::BuildWorkload selects them.
void WeighOps(std::span<const KernelAttribution> attribution, const std::vector<KernelBrief>& briefs,
              const std::optional<std::pair<int64_t, int64_t>>& window, std::vector<OpRow>& ops) {
  for (const KernelAttribution& a : attribution) {
    const KernelBrief& k = briefs[static_cast<size_t>(a.kernel.value())];
    if (window && (k.start_ns < window->first || k.start_ns >= window->second)) continue;
    OpRow& op = ops[static_cast<size_t>(a.op.value())];
    op.gpu_time_ns += k.end_ns - k.start_ns;
    ++op.kernels;
    if (op.first_start_ns < 0 || k.start_ns < op.first_start_ns) {
      op.first_start_ns = k.start_ns;
      op.measured_stream = k.stream;
    }
    op.last_end_ns = std::max(op.last_end_ns, k.end_ns);
  }
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
  const auto num_ops = static_cast<int32_t>(graph.ops.size());
  OpAnalysis out;
  for (const Op& op : graph.ops) {
    OpRow& row = out.ops.emplace_back();
    row.op = op.id;
    row.name = op.name;
    row.kind = op.kind;
    row.output_shapes = op.output_shapes;
  }
  NIMBLE_ASSIGN_OR_RETURN(const std::vector<KernelBrief> briefs, BriefsOf(timeline, attribution, num_ops));
  out.device = attribution.empty() ? FirstGpuDevice(timeline) : briefs[static_cast<size_t>(attribution.front().kernel.value())].device;
  if (!timeline.iterations.empty() && FirstGpuDevice(timeline).valid()) out.window = timeline.iterations.back();
  if (attribution.empty()) {
    for (const Op& op : graph.ops) out.ops[static_cast<size_t>(op.id.value())].gpu_time_ns = op.gpu_time_ns;
  } else {
    WeighOps(attribution, briefs, out.window, out.ops);
  }
  std::vector<int64_t> weights;
  for (const OpRow& op : out.ops) weights.push_back(op.gpu_time_ns);
  NIMBLE_ASSIGN_OR_RETURN(const analysis::CriticalPath path, analysis::ComputeCriticalPath(dag, weights));
  out.critical_path = path.ops;
  out.critical_path_ns = path.length_ns;
  std::vector<uint8_t> on_path(static_cast<size_t>(num_ops), 0);
  for (size_t i = 0; i < path.ops.size(); ++i) {
    on_path[static_cast<size_t>(path.ops[i].value())] = 1;
    out.ops[static_cast<size_t>(path.ops[i].value())].critical_position = static_cast<int32_t>(i);
  }
  const StreamAssignment assignment = stored_assignment ? *stored_assignment : analysis::AssignStreams(dag);
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
