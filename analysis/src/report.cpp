#include "nimble/analysis/report.h"

#include <algorithm>
#include <utility>

#include "nimble/analysis/op_weights.h"
#include "nimble/analysis/stream_plan.h"
#include "nimble/core/median.h"

namespace nimble::analysis {
namespace {

std::optional<DeviceReport> AnalyzeDevice(const Trace& trace, DeviceId device, const std::vector<TimeWindow>& windows,
                                          const ReportOptions& options) {
  const TimelineAnalyzer analyzer(trace, device);
  const std::optional<TimeWindow> span = analyzer.ActivitySpan();
  if (!span.has_value()) return std::nullopt;  // only host copies: no GPU activity to describe
  DeviceReport out;
  out.run = analyzer.Compute(*span);
  for (const TimeWindow& w : windows) out.iterations.push_back(analyzer.Compute(w));
  out.longest_gaps = LongestGaps(out.run.gaps, options.top_gaps);
  const TraceCriticalPathFinder paths(trace, device);
  out.run_path = paths.Find(*span);
  for (const TimeWindow& w : windows) out.iteration_paths.push_back(paths.Find(w));
  return out;
}

const DeviceReport* FindDeviceReport(const Report& report, DeviceId device) {
  for (const DeviceReport& d : report.devices) {
    if (d.run.device == device) return &d;
  }
  return nullptr;
}

const DeviceInfo* FindDeviceInfo(const ReportInput& input, DeviceId device) {
  if (input.device != nullptr) return input.device;
  for (const DeviceInfo& d : input.trace->devices) {
    if (d.id == device) return &d;
  }
  return nullptr;
}

double Ratio(int64_t num, int64_t den) { return den > 0 ? static_cast<double>(num) / static_cast<double>(den) : 0; }

struct GraphInputs {
  GraphReport graph;
  Workload workload;
  Dag dag;
};

// Weights, workload and device: with attribution, the kernels of one iteration (WeighingWindow) and
// the device they ran on; without, Op::gpu_time_ns and the first device with activity.
Status WeighGraph(const ReportInput& input, const std::vector<TimeWindow>& windows, const Report& report,
                  GraphInputs& out) {
  GraphReport& g = out.graph;
  if (input.attribution.empty()) {
    g.device = report.devices.empty() ? DeviceId(0) : report.devices.front().run.device;
    g.op_time_ns = OpWeights(*input.graph);
    out.workload = WorkloadFromOpTimes(*input.graph);
    return OkStatus();
  }
  NIMBLE_ASSIGN_OR_RETURN(OpKernels weighed, WeighOps(g.num_ops, input.attribution, KernelSpans(*input.trace),
                                                      WeighingWindow(windows)));
  g.device = weighed.device;
  out.workload = WorkloadOf(*input.trace, weighed, FindDeviceInfo(input, g.device));
  g.op_time_ns = std::move(weighed.op_time_ns);
  return OkStatus();
}

StatusOr<GraphInputs> AnalyzeGraph(const ReportInput& input, const ReportOptions& options,
                                   const std::vector<TimeWindow>& windows, const Report& report) {
  GraphInputs out;
  NIMBLE_ASSIGN_OR_RETURN(out.dag, Dag::FromOpGraph(*input.graph));
  GraphReport& g = out.graph;
  g.num_ops = out.dag.num_nodes();
  g.num_edges = out.dag.num_edges();
  NIMBLE_RETURN_IF_ERROR(WeighGraph(input, windows, report, out));
  // The ratio compares with the weighing iteration's active time: the last window, else the whole run.
  const DeviceReport* device_report = FindDeviceReport(report, g.device);
  const TimelineMetrics* iteration = nullptr;
  if (device_report != nullptr) {
    iteration = device_report->iterations.empty() ? &device_report->run : &device_report->iterations.back();
  }
  NIMBLE_ASSIGN_OR_RETURN(g.critical_path, ComputeCriticalPath(out.dag, g.op_time_ns));
  g.critical_path_ratio = iteration != nullptr ? Ratio(g.critical_path.length_ns, iteration->active_ns) : 0;
  StreamPlan plan = PlanStreams(out.dag, PlanOptions{.reduction = options.reduction});
  g.reduced_edges = static_cast<int64_t>(plan.reduced_edges.size());
  g.matched_edges = plan.matched_edges;
  g.assignment = std::move(plan.multi);
  g.concurrency = std::move(plan.concurrency);
  return out;
}

PredictionReport Compare(const Prediction& predicted, const DeviceReport* device) {
  PredictionReport out;
  out.predicted = predicted;
  if (device != nullptr) {
    std::vector<int64_t> lengths;
    for (const TimelineMetrics& it : device->iterations) lengths.push_back(it.window.dur_ns());
    out.measured_ns = lengths.empty() ? device->run.window.dur_ns() : Median(std::move(lengths));
  }
  out.speedup_aot_single = Ratio(out.measured_ns, predicted.aot_single_ns);
  out.speedup_aot_multi = Ratio(out.measured_ns, predicted.aot_multi_ns);
  return out;
}

}  // namespace

const DeviceReport* Report::primary_device() const {
  if (graph.has_value()) {
    if (const DeviceReport* d = FindDeviceReport(*this, graph->device)) return d;
  }
  return devices.empty() ? nullptr : &devices.front();
}

StatusOr<Report> BuildReport(const ReportInput& input, const ReportOptions& options) {
  if (input.trace == nullptr) return InvalidArgument("a report needs a trace");
  Report report;
  const std::vector<TimeWindow> windows =
      options.iteration_range.empty() ? std::vector<TimeWindow>{} : WindowsFromNvtx(*input.trace, options.iteration_range);
  for (DeviceId device : ActiveDevices(*input.trace)) {
    if (auto d = AnalyzeDevice(*input.trace, device, windows, options)) report.devices.push_back(std::move(*d));
  }
  if (input.graph == nullptr) return report;
  auto analyzed = AnalyzeGraph(input, options, windows, report);
  if (!analyzed.ok()) return analyzed.status().WithContext("op graph");
  report.graph = std::move(analyzed->graph);
  // Sharing left unset (the identity, unnamed): the calibration built in for the device the run recorded.
  PredictionOptions prediction = options.prediction;
  if (prediction.sharing.identity() && prediction.sharing.source.empty()) {
    const DeviceInfo* info = FindDeviceInfo(input, report.graph->device);
    prediction.sharing = SharingFor(info != nullptr ? input.trace->strings.Get(info->name) : "");
  }
  auto predicted = Predict(analyzed->dag, analyzed->workload, report.graph->assignment, prediction);
  if (!predicted.ok()) return predicted.status().WithContext("prediction");
  report.prediction = Compare(*predicted, FindDeviceReport(report, report.graph->device));
  return report;
}

std::optional<size_t> MedianIteration(const DeviceReport& device) {
  std::vector<int64_t> spans;
  spans.reserve(device.iterations.size());
  for (const TimelineMetrics& it : device.iterations) spans.push_back(it.window.dur_ns());
  return MedianIndex(spans);
}

}  // namespace nimble::analysis
