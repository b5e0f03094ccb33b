#include "nimble/gui/item_description.h"

#include <algorithm>
#include <cstdio>

#include "nimble/gui/palette.h"
#include "nimble/gui/ruler_ticks.h"

namespace nimble::gui {
namespace {

using Fields = std::vector<std::pair<std::string, std::string>>;

std::string Label(const RunTimeline& t, int32_t label) {
  return label >= 0 ? t.strings.Get(StringId(label)) : std::string();
}

std::string StreamName(StreamId stream) { return stream.valid() ? std::to_string(stream.value()) : "-"; }

// "2 of 3" for the iteration window holding `t_ns`, "" outside every window.
std::string IterationOf(const RunTimeline& t, int64_t t_ns) {
  for (size_t i = 0; i < t.iterations.size(); ++i) {
    if (t_ns >= t.iterations[i].first && t_ns < t.iterations[i].second) {
      return std::to_string(i + 1) + " of " + std::to_string(t.iterations.size());
    }
  }
  return "";
}

void AddOpFields(const LoadedRun& run, int32_t op, Fields& fields) {
  if (op < 0 || !run.ops || static_cast<size_t>(op) >= run.ops->ops.size()) return;
  const OpRow& row = run.ops->ops[static_cast<size_t>(op)];
  fields.emplace_back("Op", row.name + " (" + row.kind + ")");
  if (!row.output_shapes.empty()) fields.emplace_back("Output shapes", row.output_shapes);
  fields.emplace_back("Op GPU time", FormatDuration(static_cast<double>(row.gpu_time_ns)) + " in " +
                                         std::to_string(row.kernels) + " kernel(s) per iteration");
  fields.emplace_back("Measured stream", StreamName(row.measured_stream));
  if (row.assigned_stream.valid()) fields.emplace_back("Assigned stream", StreamName(row.assigned_stream));
  fields.emplace_back("Critical path", row.critical_position >= 0
                                           ? "yes, op " + std::to_string(row.critical_position + 1) + " of " +
                                                 std::to_string(run.ops->critical_path.size())
                                           : "no");
}

void DescribeGpuItem(const LoadedRun& run, const Lane& lane, ItemRef ref, ItemDescription& out) {
  const RunTimeline& t = run.timeline;
  out.fields.emplace_back("Device", std::to_string(lane.device.value()));
  out.fields.emplace_back("Stream", StreamName(lane.stream));
  if (ref.kind() == ItemKind::kKernel) {
    out.kind = "Kernel";
    out.fields.emplace_back("Kernel index", std::to_string(ref.index()));
    if (ref.index() < t.kernel_correlation.size()) {
      const int64_t correlation = t.kernel_correlation[ref.index()];
      out.fields.emplace_back("Correlation id", std::to_string(correlation));
      const RunTimeline::Location api = t.FindApiCall(correlation);
      if (api.lane >= 0) {
        const RowItems& row = t.lanes[static_cast<size_t>(api.lane)].rows[static_cast<size_t>(api.row)];
        out.fields.emplace_back("Launched by", Label(t, row.label(static_cast<size_t>(api.item))) + " on thread " +
                                                   std::to_string(t.lanes[static_cast<size_t>(api.lane)].thread.value()));
      }
    }
    AddOpFields(run, OpOfItem(t, ref), out.fields);
    return;
  }
  if (ref.kind() == ItemKind::kGraphLaunch) {
    const GraphLaunchInfo& g = t.graph_launches[ref.index()];
    out.kind = "CUDA graph launch";
    out.fields.emplace_back("Graph id", std::to_string(g.graph_id));
    out.fields.emplace_back("Correlation id", std::to_string(g.correlation));
    out.fields.emplace_back("Nodes", "not recorded (graph-level trace)");
    return;
  }
  const bool copy = ref.kind() == ItemKind::kMemcpy;
  out.kind = copy ? "Memory copy" : "Memory set";
  const CopyInfo& info = copy ? t.memcpys[ref.index()] : t.memsets[ref.index()];
  out.fields.emplace_back("Bytes", std::to_string(info.bytes));
}

}  // namespace

int32_t OpOfItem(const RunTimeline& timeline, ItemRef ref) {
  if (ref.kind() != ItemKind::kKernel || ref.index() >= timeline.kernel_op.size()) return -1;
  return timeline.kernel_op[ref.index()];
}

ItemDescription DescribeItem(const LoadedRun& run, const ItemLocation& location) {
  const RunTimeline& t = run.timeline;
  const Lane& lane = t.lanes[static_cast<size_t>(location.lane)];
  const RowItems& row = lane.rows[static_cast<size_t>(location.row)];
  const auto i = static_cast<size_t>(location.item);
  const ItemRef ref = row.ref(i);
  ItemDescription out;
  const int64_t align = run.AlignNs();
  out.fields.emplace_back("Start", FormatDuration(static_cast<double>(row.start_ns(i) - align)));
  out.fields.emplace_back("Duration", FormatDuration(static_cast<double>(row.end_ns(i) - row.start_ns(i))));
  if (const std::string it = IterationOf(t, row.start_ns(i)); !it.empty()) out.fields.emplace_back("Iteration", it);
  switch (ref.kind()) {
    case ItemKind::kGap: {
      const auto cause = static_cast<analysis::GapCause>(row.label(i));
      out.kind = "Idle gap";
      out.title = "GPU " + std::to_string(lane.device.value()) + " idle: " + std::string(GapCauseLabel(cause));
      out.fields.emplace_back("Cause", std::string(GapCauseLabel(cause)));
      return out;
    }
    case ItemKind::kApiCall: {
      out.kind = "CUDA API call";
      out.title = Label(t, row.label(i));
      out.fields.emplace_back("Thread", std::to_string(lane.thread.value()));
      const int64_t correlation = t.api_correlation[ref.index()];
      out.fields.emplace_back("Correlation id", std::to_string(correlation));
      const RunTimeline::Location k = t.FindKernelByCorrelation(correlation);
      if (k.lane >= 0) {
        const RowItems& krow = t.lanes[static_cast<size_t>(k.lane)].rows[static_cast<size_t>(k.row)];
        out.fields.emplace_back("Launched", Label(t, krow.label(static_cast<size_t>(k.item))) + " on stream " +
                                                StreamName(t.lanes[static_cast<size_t>(k.lane)].stream));
      }
      return out;
    }
    case ItemKind::kRange:
      out.kind = "NVTX range";
      out.title = Label(t, row.label(i));
      out.fields.emplace_back("Thread", std::to_string(lane.thread.value()));
      out.fields.emplace_back("Depth", std::to_string(location.row));
      return out;
    default:
      out.title = Label(t, row.label(i));
      if (out.title.empty()) out.title = "(unnamed kernel)";
      DescribeGpuItem(run, lane, ref, out);
      return out;
  }
}

std::vector<std::pair<std::string, std::string>> DescribeKernelRecord(const KernelRecord& k, const StringTable& strings) {
  const auto dim = [](const Dim3& d) {
    return std::to_string(d.x) + " x " + std::to_string(d.y) + " x " + std::to_string(d.z);
  };
  Fields out;
  out.emplace_back("Grid", dim(k.grid));
  out.emplace_back("Block", dim(k.block));
  out.emplace_back("Registers / thread", std::to_string(k.registers_per_thread));
  out.emplace_back("Shared memory", std::to_string(k.static_shared_bytes) + " B static, " +
                                        std::to_string(k.dynamic_shared_bytes) + " B dynamic");
  if (k.graph_id != 0) out.emplace_back("CUDA graph", std::to_string(k.graph_id) + ", node " + std::to_string(k.graph_node_id));
  if (k.name.valid()) out.emplace_back("Full name", strings.Get(k.name));
  return out;
}

}  // namespace nimble::gui
