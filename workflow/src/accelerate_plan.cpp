// Planning for the accelerate workflow: the paper's assignment via the analysis library, and a workload for
// its simulator. With a recording, each op's kernels with their measured durations and launch
// configurations; without one, an op time from the isolated timing and a GPU share guessed from the
// output size (the assumptions the report names when measurement and prediction disagree).
#include "nimble/analysis/stream_plan.h"
#include "accelerate_plan.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <utility>

#include "nimble/analysis/stream_plan.h"
#include "nimble/analysis/timeline.h"
#include "nimble/core/median.h"

namespace nimble::workflow {
namespace {

// The same ops with the same output shapes (where both graphs recorded them): a run of the model at
// another input shape (another bucket) launched other kernels.
bool SameOps(const OpGraph& a, const OpGraph& b) {
  if (a.ops.size() != b.ops.size()) return false;
  for (size_t i = 0; i < a.ops.size(); ++i) {
    if (a.ops[i].kind != b.ops[i].kind) return false;
    const std::string& x = a.ops[i].output_shapes;
    const std::string& y = b.ops[i].output_shapes;
    if (!x.empty() && !y.empty() && x != y) return false;
  }
  return true;
}

// The iteration window of median length, with its position; nullopt when the run marked none.
std::optional<std::pair<analysis::TimeWindow, size_t>> MedianIteration(const Trace& trace, size_t* count) {
  const std::string range = analysis::DetectIterationRange(trace);
  const std::vector<analysis::TimeWindow> windows =
      range.empty() ? std::vector<analysis::TimeWindow>{} : analysis::WindowsFromNvtx(trace, range);
  *count = windows.size();
  std::vector<int64_t> spans;
  for (const analysis::TimeWindow& window : windows) spans.push_back(window.dur_ns());
  const std::optional<size_t> median = MedianIndex(spans);
  if (!median) return std::nullopt;
  return std::pair{windows[*median], *median};
}

}  // namespace

StatusOr<MeasuredWorkload> WorkloadFromDatabase(const store::RunReader& reader, const OpGraph& graph,
                                                std::optional<bool> tf32, std::optional<bool> channels_last) {
  const std::string& db = reader.path();
  NIMBLE_ASSIGN_OR_RETURN(std::vector<RunInfo> runs, reader.Runs());
  bool skipped_precision = false;
  bool skipped_layout = false;
  for (auto run = runs.rbegin(); run != runs.rend(); ++run) {
    auto stored = reader.LoadGraph(run->id);
    if (!stored.ok() || !SameOps(*stored, graph)) continue;
    NIMBLE_ASSIGN_OR_RETURN(std::vector<KernelAttribution> attribution, reader.LoadAttribution(run->id));
    if (attribution.empty()) continue;  // a run of nimble-accelerate: op times, no kernels
    NIMBLE_ASSIGN_OR_RETURN(std::vector<StatEntry> stats, reader.LoadStats(run->id));
    const bool other_precision = std::any_of(stats.begin(), stats.end(), [&](const StatEntry& s) {
      return tf32 && s.name == "profile.tf32_allowed" && (s.value != 0) != *tf32;
    });
    if (other_precision) {  // other convolution kernels than the ones nimble-accelerate captures
      skipped_precision = true;
      continue;
    }
    if (channels_last) {
      const auto layout = std::find_if(stats.begin(), stats.end(),
                                       [](const StatEntry& s) { return s.name == "profile.channels_last"; });
      if ((layout != stats.end() && layout->value != 0) != *channels_last) {  // other kernels again
        skipped_layout = true;
        continue;
      }
    }
    NIMBLE_ASSIGN_OR_RETURN(Trace trace, reader.LoadTrace(run->id));
    size_t iterations = 0;
    const auto iteration = MedianIteration(trace, &iterations);
    const DeviceInfo* device = trace.devices.empty() ? nullptr : &trace.devices.front();
    MeasuredWorkload out;
    StatusOr<analysis::Workload> workload =
        analysis::BuildWorkload(trace, static_cast<int32_t>(graph.ops.size()), attribution, device,
                                iteration ? std::optional(iteration->first) : std::nullopt);
    if (!workload.ok()) return workload.status().WithContext(db + ", run " + std::to_string(run->id.value()));
    out.workload = std::move(*workload);
    out.source = "kernels of run " + std::to_string(run->id.value()) + " in " + db;
    if (iteration) {
      out.source += " (iteration " + std::to_string(iteration->second + 1) + " of " + std::to_string(iterations) +
                    ", the median)";
    }
    return out;
  }
  const bool want_tf32 = tf32.value_or(false);
  const std::string record = want_tf32 ? "nimble-prof model.pt" : "nimble-prof model.pt --no-tf32";
  if (skipped_precision) {
    return NotFound(db + ": the runs of this model were recorded with TF32 convolutions " +
                    (want_tf32 ? "off" : "on") + "; record one as nimble-accelerate runs, with " + record);
  }
  if (skipped_layout) {
    return NotFound(db + ": the runs of this model were recorded with the convolutions " +
                    (*channels_last ? "contiguous" : "in channels_last") + "; record one with " + record +
                    " --memory-format " + (*channels_last ? "channels_last" : "contiguous"));
  }
  return NotFound(db + ": no run of this model with kernel records (same ops and shapes); record one with " + record);
}

analysis::Workload WorkloadFromOpTimes(const OpGraph& graph, int64_t device_threads) {
  analysis::Workload workload;
  for (const Op& op : graph.ops) {
    std::vector<analysis::SimKernel> kernels;
    if (op.gpu_time_ns > 0) kernels.push_back({op.gpu_time_ns, EstimatedShare(op.output_shapes, device_threads)});
    workload.op_kernels.push_back(std::move(kernels));
  }
  return workload;
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

StatusOr<Plan> MakePlan(const OpGraph& graph, analysis::Workload workload, int32_t max_streams, bool pack_streams) {
  if (workload.op_kernels.size() != graph.ops.size()) {
    return InvalidArgument("workload of " + std::to_string(workload.op_kernels.size()) + " ops for a graph of " +
                           std::to_string(graph.ops.size()));
  }
  Plan plan;
  NIMBLE_ASSIGN_OR_RETURN(plan.dag, analysis::Dag::FromOpGraph(graph));
  analysis::StreamPlan streams =
      analysis::PlanStreams(plan.dag, analysis::PlanOptions{.max_streams = 0, .concurrency = false});
  plan.uncapped = streams.multi;
  if (pack_streams) {
    streams.multi = analysis::PackStreams(streams.multi, streams.reduced_edges, max_streams);
  } else {
    streams.multi = analysis::LimitStreams(streams.multi, max_streams, streams.reduced_edges);
  }
  plan.reduced_edges = std::move(streams.reduced_edges);
  plan.matched_edges = streams.matched_edges;
  plan.multi = std::move(streams.multi);
  plan.width_streams = streams.width_streams;
  plan.single = std::move(streams.single);
  plan.workload = std::move(workload);
  return plan;
}

bool HasConvolution(const OpGraph& graph) {
  for (const Op& op : graph.ops) {
    if (op.kind.find("convolution") != std::string::npos || op.kind.rfind("aten::conv", 0) == 0 ||
        op.kind.rfind("nimble::conv_epilogue", 0) == 0) {
      return true;
    }
  }
  return false;
}

analysis::Precision ModelPrecision(int64_t float32_weights, int64_t half_weights, const std::vector<TensorSpec>& inputs,
                                   bool tf32_convolutions) {
  const analysis::Precision float32 =
      tf32_convolutions ? analysis::Precision::kUnknown : analysis::Precision::kFloat32;
  if (float32_weights > 0 || half_weights > 0) return half_weights > float32_weights ? analysis::Precision::kHalf : float32;
  bool any_float32 = false;
  for (const TensorSpec& input : inputs) {
    if (IsHalfPrecision(input.dtype)) return analysis::Precision::kHalf;
    any_float32 = any_float32 || input.dtype == DType::kFloat32;
  }
  return any_float32 ? float32 : analysis::Precision::kUnknown;
}

Status PredictPlan(Plan* plan, const analysis::PredictionOptions& options) {
  NIMBLE_ASSIGN_OR_RETURN(plan->prediction, analysis::Predict(plan->dag, plan->workload, plan->multi, options));
  return OkStatus();
}

StatusOr<int32_t> SearchStreamCounts(int32_t start, const std::function<int32_t(int32_t)>& streams_for,
                                     const std::function<StatusOr<bool>(int32_t)>& fits) {
  int32_t over = 0;  // the fewest streams found over the budget (0: none yet)
  int32_t count = start;
  while (true) {
    if (count < 2) return 0;
    NIMBLE_ASSIGN_OR_RETURN(const bool fit, fits(count));
    if (fit) break;
    over = count;
    if (over / 2 < 2) return 0;
    count = streams_for(over / 2);
  }
  int32_t fit = count;
  while (over - fit > 1) {
    const int32_t next = streams_for((fit + over) / 2);
    if (next <= fit || next >= over) break;  // the packing reaches no count between them
    NIMBLE_ASSIGN_OR_RETURN(const bool fit_next, fits(next));
    (fit_next ? fit : over) = next;
  }
  return fit;
}

}  // namespace nimble::workflow
