#include "nimble/gui/run_loader.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <utility>

#include "nimble/analysis/report.h"
#include "nimble/gui/host_gpu_path.h"
#include "nimble/gui/idle_gap_finder.h"
#include "nimble/store/run_reader.h"
#include "run_ingest.h"

namespace nimble::gui {
namespace {

using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point& t) {
  const Clock::time_point now = Clock::now();
  const double ms = std::chrono::duration<double, std::milli>(now - t).count();
  t = now;
  return ms;
}

void Report(const LoadOptions& options, double fraction, std::string_view stage) {
  if (options.progress) options.progress(fraction, stage);
}

// First activity start and last end over every lane.
void ComputeSpan(RunTimeline& timeline) {
  bool any = false;
  for (const Lane& lane : timeline.lanes) {
    for (const RowItems& row : lane.rows) {
      if (row.empty()) continue;
      const int64_t first = row.start_ns(0);
      const int64_t last = row.max_end_ns(row.size() - 1);
      timeline.start_ns = any ? std::min(timeline.start_ns, first) : first;
      timeline.end_ns = any ? std::max(timeline.end_ns, last) : last;
      any = true;
    }
  }
}

// The device ids of the timeline's stream lanes, ascending.
std::vector<DeviceId> GpuDevices(const RunTimeline& timeline) {
  std::vector<DeviceId> devices;
  for (const Lane& lane : timeline.lanes) {
    if (lane.kind == LaneKind::kStream && std::find(devices.begin(), devices.end(), lane.device) == devices.end()) {
      devices.push_back(lane.device);
    }
  }
  std::sort(devices.begin(), devices.end());
  return devices;
}

// A device's gaps become its summary for the tables and an idle lane before its first stream.
void AddIdleLane(DeviceGaps gaps, size_t longest_gaps, LoadedRun& out) {
  DeviceIdleSummary& summary = out.devices.emplace_back();
  summary.device = gaps.device;
  summary.span_start_ns = gaps.activity.span.start_ns;
  summary.span_end_ns = gaps.activity.span.end_ns;
  summary.active_ns = gaps.activity.active_ns;
  Lane idle;
  idle.kind = LaneKind::kDeviceIdle;
  idle.device = gaps.device;
  RowItems& row = idle.rows.emplace_back();
  row.Reserve(gaps.activity.gaps.size());
  for (size_t i = 0; i < gaps.activity.gaps.size() && i <= ItemRef::kMaxIndex; ++i) {
    const analysis::IdleGap& g = gaps.activity.gaps[i];
    summary.totals.Add(g);
    row.Add(g.start_ns, g.start_ns + g.dur_ns, static_cast<int32_t>(g.cause), ItemRef(ItemKind::kGap, static_cast<uint32_t>(i)));
  }
  row.Finish();
  summary.busy = BusyProfile(row, summary.span_start_ns, summary.span_end_ns);
  summary.longest = analysis::LongestGaps(std::move(gaps.activity.gaps), longest_gaps);
  auto& lanes = out.timeline.lanes;
  const auto at = std::find_if(lanes.begin(), lanes.end(),
                               [&](const Lane& l) { return l.kind == LaneKind::kStream && l.device == summary.device; });
  lanes.insert(at, std::move(idle));
}

// Idle gaps of every device, classified by a GapClassifier that indexes only the launch calls of the
// work ending a gap (a run of 10 million launches need not be indexed whole).
void AddIdleLanes(Trace classifier_trace, size_t longest_gaps, LoadedRun& out) {
  std::vector<DeviceGaps> devices;
  for (DeviceId device : GpuDevices(out.timeline)) {
    DeviceGaps gaps = FindDeviceGaps(out.timeline, device);
    if (!gaps.activity.empty()) devices.push_back(std::move(gaps));
  }
  classifier_trace.api_calls = LaunchCallsOfGaps(out.timeline, devices);
  for (DeviceGaps& gaps : devices) {
    analysis::ClassifyGaps(analysis::GapClassifier(classifier_trace, gaps.device), gaps.activity);
    AddIdleLane(std::move(gaps), longest_gaps, out);
  }
}

// Without op analysis, the critical path through host and GPU (host_gpu_path.h); a run too large for
// it says why in the summary.
void AddHostGpuPath(const std::vector<SyncRecord>& syncs, LoadedRun& out) {
  auto path = AnalyzeHostGpuPath(syncs, out.devices, out.timeline);
  if (path.ok()) out.host_gpu_path = std::move(*path);
  else if (path.status().code() != StatusCode::kNotFound) out.host_gpu_path_problem = path.status().message();
}

// Graph, attribution and assignment through RunReader; a bad graph is reported, not fatal.
Status AnalyzeGraph(const store::RunReader& reader, RunId run, LoadedRun& out) {
  NIMBLE_ASSIGN_OR_RETURN(OpGraph graph, reader.LoadGraph(run));
  if (graph.ops.empty()) return OkStatus();
  NIMBLE_ASSIGN_OR_RETURN(std::vector<KernelAttribution> attribution, reader.LoadAttribution(run));
  NIMBLE_ASSIGN_OR_RETURN(std::optional<StreamAssignment> assignment, reader.LoadAssignment(run));
  if (assignment && assignment->op_stream.size() != graph.ops.size()) assignment.reset();
  auto ops = AnalyzeOps(graph, attribution, assignment, out.timeline);
  if (ops.ok()) out.ops = std::move(*ops);
  else out.graph_problem = ops.status().message();
  return OkStatus();
}

// The run's figures per iteration, sampled as `nimble-prof diff` samples them: analysis's timeline
// report over the detected iteration range, then analysis::SampleRun. Reads the whole trace once.
StatusOr<analysis::RunSamples> SampleForDiff(const store::RunReader& reader, RunId run) {
  NIMBLE_ASSIGN_OR_RETURN(const Trace trace, reader.LoadTrace(run));
  NIMBLE_ASSIGN_OR_RETURN(const OpGraph graph, reader.LoadGraph(run));
  NIMBLE_ASSIGN_OR_RETURN(const std::vector<KernelAttribution> attribution, reader.LoadAttribution(run));
  analysis::ReportOptions options;
  options.iteration_range = analysis::DetectIterationRange(trace);
  NIMBLE_ASSIGN_OR_RETURN(const analysis::Report report, analysis::BuildReport({&trace, nullptr, {}, nullptr}, options));
  const bool with_graph = !graph.ops.empty();
  return analysis::SampleRun({&trace, &report, with_graph ? &graph : nullptr,
                              with_graph ? std::span<const KernelAttribution>(attribution)
                                         : std::span<const KernelAttribution>()});
}

}  // namespace

StatusOr<std::vector<RunInfo>> ListRuns(const std::string& path) {
  NIMBLE_ASSIGN_OR_RETURN(auto reader, store::RunReader::Open(path));
  return reader->Runs();
}

StatusOr<LoadedRun> LoadRun(const std::string& path, RunId run, const LoadOptions& options) {
  Clock::time_point t = Clock::now();
  const Clock::time_point start = t;
  LoadedRun out;
  out.path = path;
  Report(options, 0, "Opening");
  NIMBLE_ASSIGN_OR_RETURN(auto run_reader, store::RunReader::Open(path));
  NIMBLE_ASSIGN_OR_RETURN(out.info, run_reader->Run(run));
  NIMBLE_ASSIGN_OR_RETURN(auto reader, store::TimelineReader::Open(path));
  NIMBLE_ASSIGN_OR_RETURN(const int64_t kernel_end, reader->KernelIndexEnd(run));
  if (kernel_end - 1 > static_cast<int64_t>(ItemRef::kMaxIndex)) {
    return Unimplemented(path + ": run " + std::to_string(run.value()) + " has " + std::to_string(kernel_end) +
                         " kernels, more than the viewer can index");
  }
  std::optional<int64_t> base_ns;
  if (kernel_end > 0) {
    NIMBLE_ASSIGN_OR_RETURN(const KernelRecord first, reader->LoadKernel(run, KernelIndex(0)));
    base_ns = first.start_ns;
  }
  out.timeline.strings = reader->strings();
  out.timeline.kernel_count = kernel_end;
  out.timings.open_ms = MsSince(t);

  Report(options, 0.02, "Reading host activity");
  LaneSet lanes;
  HostTables host;
  NIMBLE_RETURN_IF_ERROR(ReadHostTables(*reader, run, base_ns, options.cancel, out.timeline, lanes, host));
  out.timeline.base_ns = base_ns.value_or(0);
  out.timings.host_tables_ms = MsSince(t);

  const bool with_correlation = !out.timeline.api_correlation.empty();
  NIMBLE_RETURN_IF_ERROR(ReadKernels(*reader, run, kernel_end, out.timeline.base_ns, with_correlation, options, 0.05,
                                     0.85, lanes, out.timeline));
  out.timings.kernels_ms = MsSince(t);

  Report(options, 0.86, "Building lanes");
  out.timeline.lanes = lanes.Finish(static_cast<unsigned>(std::max(options.kernel_threads, 1)));
  ComputeSpan(out.timeline);
  const IterationRanges iterations = DetectIterations(host.ranges);
  out.timeline.iterations = iterations.windows;
  out.timeline.iteration_text = out.timeline.strings.Get(iterations.text);
  out.timings.lanes_ms = MsSince(t);

  Report(options, 0.9, "Finding idle gaps");
  const std::vector<SyncRecord> syncs = host.classifier_trace.syncs;  // the path's, after the gaps'
  AddIdleLanes(std::move(host.classifier_trace), options.longest_gaps, out);
  host = HostTables();
  out.timings.gaps_ms = MsSince(t);

  Report(options, 0.95, "Analysing the op graph");
  NIMBLE_RETURN_IF_ERROR(AnalyzeGraph(*run_reader, run, out));
  if (!out.ops) AddHostGpuPath(syncs, out);
  NIMBLE_ASSIGN_OR_RETURN(out.speedups, run_reader->LoadSpeedups(run));
  NIMBLE_ASSIGN_OR_RETURN(out.metrics, run_reader->LoadMetrics(run));
  NIMBLE_ASSIGN_OR_RETURN(out.stats, run_reader->LoadStats(run));
  out.timings.ops_ms = MsSince(t);
  if (options.diff_samples) {
    Report(options, 0.97, "Sampling iterations for the diff");
    auto samples = SampleForDiff(*run_reader, run);
    if (samples.ok()) out.diff_samples = std::move(*samples);
    else out.diff_problem = samples.status().message();
  }
  // The load is done with the reader: from here on it serves details, from any thread.
  out.records = std::make_shared<const RunRecords>(std::move(reader), run);
  out.timings.total_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  Report(options, 1, "Done");
  return out;
}

}  // namespace nimble::gui
