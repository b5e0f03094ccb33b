#include "nimble/analysis/run_samples.h"

#include <algorithm>
#include <iterator>
#include <utility>


namespace nimble::analysis {
namespace {

// The metrics that are the samples: one per iteration window, else the whole run.
std::vector<const TimelineMetrics*> SampleMetrics(const DeviceReport& device) {
  std::vector<const TimelineMetrics*> out;
  for (const TimelineMetrics& it : device.iterations) out.push_back(&it);
  if (out.empty()) out.push_back(&device.run);
  return out;
}

void AddTotals(const std::vector<const TimelineMetrics*>& metrics, RunSamples& out) {
  for (const TimelineMetrics* m : metrics) {
    out.iteration_ns.push_back(m->window.dur_ns());
    out.active_ns.push_back(m->active_ns);
    out.idle_ns.push_back(m->idle_ns);
    for (size_t c = 0; c < kNumGapCauses; ++c) out.idle_by_cause_ns[c].push_back(m->idle_by_cause.dur_ns[c]);
  }
}

const std::string& KernelName(const Trace& trace, const KernelRecord& k) {
  const std::string& name = trace.strings.Get(k.name);
  return name.empty() ? trace.strings.Get(k.short_name) : name;
}

// The sample a kernel starting at `start_ns` belongs to, as MedianOpTimes assigns kernels to windows
// (`windows` sorted by start); -1 between windows.
int64_t SampleOf(const std::vector<TimeWindow>& windows, int64_t start_ns) {
  const auto after = std::upper_bound(windows.begin(), windows.end(), start_ns,
                                      [](int64_t t, const TimeWindow& w) { return t < w.start_ns; });
  if (after == windows.begin() || start_ns >= std::prev(after)->end_ns) return -1;
  return std::prev(after) - windows.begin();
}

void AddKernels(const Trace& trace, DeviceId device, const std::vector<TimeWindow>& windows, bool whole_run,
                RunSamples& out) {
  const size_t samples = static_cast<size_t>(out.samples);
  for (const KernelRecord& k : trace.kernels) {
    if (k.device != device) continue;
    const int64_t sample = whole_run ? 0 : SampleOf(windows, k.start_ns);
    if (sample < 0) continue;
    std::vector<int64_t>& series = out.kernels[KernelName(trace, k)];
    if (series.empty()) series.assign(samples, 0);
    series[static_cast<size_t>(sample)] += k.dur_ns();
  }
}

// Per op, its kernels' time in each window, in one pass over the attribution, with the rule
// MedianOpTimes weighs ops by (a kernel counts in the window its start lies in, on any device).
void AddOps(const RunDiffInput& input, const std::vector<TimeWindow>& windows, bool whole_run, RunSamples& out) {
  const OpGraph& graph = *input.graph;
  out.has_graph = true;
  std::vector<std::vector<int64_t>> per_sample;
  if (input.attribution.empty()) {
    std::vector<int64_t> weights;
    for (const Op& op : graph.ops) weights.push_back(op.gpu_time_ns);
    per_sample.push_back(std::move(weights));
  } else {
    per_sample.assign(static_cast<size_t>(out.samples), std::vector<int64_t>(graph.ops.size(), 0));
    for (const KernelAttribution& a : input.attribution) {
      const auto kernel = static_cast<size_t>(a.kernel.value());
      const auto op = static_cast<size_t>(a.op.value());
      if (kernel >= input.trace->kernels.size() || op >= graph.ops.size()) continue;
      const KernelRecord& k = input.trace->kernels[kernel];
      const int64_t sample = whole_run ? 0 : SampleOf(windows, k.start_ns);
      if (sample >= 0) per_sample[static_cast<size_t>(sample)][op] += k.dur_ns();
    }
  }
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    // Names are unique in a valid graph; a repeated one keeps its ops apart rather than adding them up.
    std::string name = graph.ops[i].name;
    if (out.ops.contains(name)) name += " (op " + std::to_string(i) + ")";
    std::vector<int64_t>& series = out.ops[name];
    for (const std::vector<int64_t>& sample : per_sample) series.push_back(sample[i]);
  }
}

}  // namespace

StatusOr<RunSamples> SampleRun(const RunDiffInput& input) {
  if (input.trace == nullptr || input.report == nullptr) return InvalidArgument("a run diff needs a trace and its report");
  const DeviceReport* device = input.report->primary_device();
  if (device == nullptr) return FailedPrecondition("the run has no GPU activity to compare");
  RunSamples out;
  out.device = device->run.device;
  const std::vector<const TimelineMetrics*> metrics = SampleMetrics(*device);
  out.samples = static_cast<int32_t>(metrics.size());
  out.whole_run = device->iterations.empty();
  AddTotals(metrics, out);
  std::vector<TimeWindow> windows;
  for (const TimelineMetrics& it : device->iterations) windows.push_back(it.window);
  std::stable_sort(windows.begin(), windows.end(),
            [](const TimeWindow& a, const TimeWindow& b) { return a.start_ns < b.start_ns; });
  AddKernels(*input.trace, out.device, windows, out.whole_run, out);
  if (input.graph != nullptr && !input.graph->ops.empty()) AddOps(input, windows, out.whole_run, out);
  return out;
}

}  // namespace nimble::analysis
