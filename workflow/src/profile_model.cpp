// Model profiling's GPU half. The steps: load the model on the GPU (front end), run warm-up iterations
// unrecorded, time iterations with the collector off, record the measured iterations in-process (op
// brackets carry external correlation ids), attribute kernels to ops, report the run from memory and
// write run, graph, attribution, stats and results with one writer.
#include <unistd.h>

#include <ctime>
#include <memory>

#include "nimble/accelerate/cuda_devices.h"
#include "nimble/accelerate/eager_runner.h"
#include "nimble/accelerate/model_graph.h"
#include "nimble/accelerate/model_timing.h"
#include "nimble/collector/in_process_session.h"
#include "nimble/core/median.h"
#include "nimble/store/run_writer.h"
#include "nimble/workflow/format.h"
#include "nimble/workflow/profile_model.h"
#include "profile_recorder.h"
#include "recorded_inputs.h"
#include "profile_stats.h"

namespace nimble::workflow {
namespace {

constexpr char kOpRangeDomain[] = "nimble-prof op";

const Status kNoGpu = FailedPrecondition(
    "no CUDA device: nimble-prof model.pt needs a GPU; `nimble-prof report` works on recorded runs without one");

struct Session {
  const ProfileOptions& options;
  Progress progress;
  accelerate::ModelGraph model;
  std::string device_name;
  std::unique_ptr<accelerate::EagerRunner> runner;
  ProfileMeasurements measured;
  std::vector<analysis::TimeWindow> windows;
  std::vector<analysis::OpBracket> brackets;
  collector::InProcessRecording recording;
};

Status LoadModel(Session& s) {
  const ProfileOptions& o = s.options;
  s.progress.Step("loading " + o.model + " on " + o.device);
  if (!o.tf32) accelerate::DisableTf32();
  const std::optional<accelerate::MemoryFormat> format = accelerate::ParseMemoryFormat(o.memory_format);
  if (!format) {
    return InvalidArgument("memory format '" + o.memory_format + "': expected auto, contiguous or channels_last");
  }
  const accelerate::FrontEndOptions front{.optimize = o.optimize,
                                          .cuda_fusions = o.cuda_fusions,
                                          // A saved module is for plain PyTorch (torch.jit.load), which
                                          // has no nimble:: operators.
                                          .conv_epilogues = o.conv_epilogues && o.save_module.empty(),
                                          .tf32 = o.tf32,
                                          .memory_format = *format,
                                          .device = o.device};
  auto loaded = accelerate::LoadModelGraph(o.model, o.inputs, front);
  if (!loaded.ok() && loaded.status().code() == StatusCode::kUnavailable && accelerate::CudaDeviceCount() == 0) {
    return kNoGpu;
  }
  if (!loaded.ok()) return loaded.status();
  s.model = std::move(loaded).value();
  if (!s.model.blas.warning.empty()) s.progress.Warning(s.model.blas.warning);
  NIMBLE_ASSIGN_OR_RETURN(s.device_name, accelerate::CudaDeviceName(s.model.model.device()));
  s.measured.ops = static_cast<int64_t>(s.model.graph.ops.size());
  s.measured.channels_last = s.model.channels_last;
  s.measured.graph_nodes = s.model.graph_nodes;
  s.measured.load_ns = s.model.load_ns;
  s.measured.shape_run_ns = s.model.shape_run_ns;
  s.progress.Step("loaded " + std::to_string(s.model.graph.ops.size()) + " ops, " +
                  std::to_string(s.model.graph.edges.size()) + " edges from " + std::to_string(s.model.graph_nodes) +
                  " graph nodes on " + s.device_name + " (load " + FormatDuration(s.model.load_ns) +
                  ", shape run " + FormatDuration(s.model.shape_run_ns) + ")");
  if (!o.save_module.empty()) NIMBLE_RETURN_IF_ERROR(s.model.model.Save(o.save_module));
  NIMBLE_ASSIGN_OR_RETURN(s.runner, accelerate::EagerRunner::Create(s.model));
  return OkStatus();
}

// Unrecorded iterations (cuDNN and cuBLAS set up, the caching allocator filled), then one check that
// the node-by-node run computes what the model's own forward computes.
Status Warmup(Session& s) {
  const int32_t runs = std::max(s.options.warmup, 1);
  s.progress.Step("warmup: " + std::to_string(s.options.warmup) + " iterations, not recorded");
  for (int32_t i = 0; i < runs; ++i) {
    NIMBLE_ASSIGN_OR_RETURN(const int64_t wall_ns, s.runner->RunIteration(nullptr));
    if (i < s.options.warmup) s.measured.warmup_wall_ns.push_back(wall_ns);
    s.progress.Tick("warmup", i + 1, runs);
  }
  NIMBLE_ASSIGN_OR_RETURN(s.measured.forward_diff, s.runner->MaxDifferenceFromForward());
  return OkStatus();
}

// The latency reported: iterations timed with the collector off, since recording costs host time
// per launch and eager inference is bound by the host.
Status Time(Session& s) {
  const int32_t n = s.options.timed_iters;
  s.progress.Step("timing " + std::to_string(n) + " iterations and module.forward, collector off");
  for (int32_t i = 0; i < n; ++i) {
    NIMBLE_ASSIGN_OR_RETURN(const int64_t wall_ns, s.runner->RunIteration(nullptr));
    s.measured.timed_wall_ns.push_back(wall_ns);
    s.progress.Tick("timed iteration", i + 1, n);
  }
  // The module's own forward, as other tools time it (crosscheck.py: the interpreter with its fusers
  // off, so that both run the graph profiled here).
  NIMBLE_ASSIGN_OR_RETURN(s.measured.forward_ns, accelerate::TimeForward(s.model.model, s.options.warmup, n,
                                                                         /*executor_optimizations=*/false));
  return OkStatus();
}

Status Record(Session& s) {
  s.progress.Step("profiling " + std::to_string(s.options.iters) + " iterations, collector on");
  NIMBLE_ASSIGN_OR_RETURN(auto session, collector::InProcessSession::Start());
  BracketRecorder recorder(*session, ThreadId(static_cast<int64_t>(::gettid())));
  for (int32_t i = 0; i < s.options.iters; ++i) {
    const int64_t start_ns = recorder.Now();
    NIMBLE_ASSIGN_OR_RETURN(const int64_t wall_ns, s.runner->RunIteration(&recorder));
    const int64_t end_ns = recorder.Now();
    NIMBLE_RETURN_IF_ERROR(recorder.status().WithContext("in-process collector"));
    s.windows.push_back(analysis::TimeWindow{start_ns, end_ns});
    s.measured.profiled_wall_ns.push_back(wall_ns);
    s.progress.Tick("iteration", i + 1, s.options.iters);
  }
  s.brackets = std::move(recorder.brackets());
  NIMBLE_ASSIGN_OR_RETURN(s.recording, session->Stop());
  s.measured.api_calls_recorded = static_cast<int64_t>(s.recording.trace.api_calls.size());
  s.measured.cupti_libraries = collector::InProcessSession::MappedCuptiLibraries();
  return OkStatus();
}

// Iterations and op brackets become ranges of the trace, so the report, `report` later and the viewer
// find them like NVTX ranges of an injected run.
void AddRanges(Session& s) {
  Trace& trace = s.recording.trace;
  const StringId iteration = trace.strings.Intern(kProfileIterationRange);
  const ThreadId thread(static_cast<int64_t>(::gettid()));
  for (const analysis::TimeWindow& w : s.windows) {
    trace.ranges.push_back(NvtxRange{w.start_ns, w.end_ns, thread, iteration, {}});
  }
  const StringId domain = trace.strings.Intern(kOpRangeDomain);
  std::vector<StringId> names;
  for (const Op& op : s.model.graph.ops) names.push_back(trace.strings.Intern(op.name));
  for (const analysis::OpBracket& b : s.brackets) {
    trace.ranges.push_back(NvtxRange{b.start_ns, b.end_ns, b.thread, names[static_cast<size_t>(b.op.value())], domain});
  }
}

Status Attribute(Session& s) {
  const auto num_ops = static_cast<int32_t>(s.model.graph.ops.size());
  analysis::OpAttribution& a = s.measured.attribution;
  a = analysis::AttributeKernels(s.recording.trace, num_ops, collector::kPushedCorrelationKind, s.brackets);
  if (a.kernel_count == 0) {
    return FailedPrecondition(s.options.model + ": no GPU kernel was recorded in " + std::to_string(s.options.iters) +
                              " iterations, so there is nothing to profile (does the model run on the host only?)");
  }
  const std::vector<int64_t> times = analysis::MedianOpTimes(s.recording.trace, a.kernels, num_ops, s.windows);
  for (size_t i = 0; i < times.size(); ++i) s.model.graph.ops[i].gpu_time_ns = times[i];
  return OkStatus();
}

RunInfo MakeRunInfo(const Session& s) {
  RunInfo run;
  run.model = s.options.model;
  run.inputs = TensorSpecsText(s.options.inputs);
  run.device = s.device_name;
  run.mode = RunMode::kEager;
  run.command = s.options.command_line;
  run.iterations = s.options.iters;
  run.warmup = s.options.warmup;
  run.created_unix_s = static_cast<int64_t>(std::time(nullptr));
  return run;
}

// One writer: the run's records, graph and stats, then its report's results; one file, one commit.
StatusOr<RunId> WriteRun(const Session& s, const std::string& path, RunInfo run, const RunReport& report) {
  NIMBLE_ASSIGN_OR_RETURN(auto writer, store::RunWriter::Create(path, std::move(run)));
  NIMBLE_RETURN_IF_ERROR(writer->AppendTrace(s.recording.trace));
  NIMBLE_RETURN_IF_ERROR(writer->WriteGraph(s.model.graph, s.measured.attribution.kernels));
  for (const StatEntry& e : ProfileStats(s.options, s.recording.stats, s.measured)) {
    NIMBLE_RETURN_IF_ERROR(writer->AddStat(e));
  }
  const StoredResults results = ResultsOf(report);
  NIMBLE_RETURN_IF_ERROR(writer->WriteMetrics(results.metrics));
  NIMBLE_RETURN_IF_ERROR(writer->WriteSpeedups(results.speedups));
  if (results.assignment) NIMBLE_RETURN_IF_ERROR(writer->WriteAssignment(*results.assignment));
  const RunId id = writer->run_id();
  NIMBLE_RETURN_IF_ERROR(writer->Commit());
  return id;
}

}  // namespace

StatusOr<ProfileResult> ProfileModel(const ProfileOptions& given, const ProgressFn& progress) {
  ProfileOptions options = given;
  NIMBLE_RETURN_IF_ERROR(FillRecordedInputs(options.model, options.inputs, progress));
  NIMBLE_RETURN_IF_ERROR(CheckProfileOptions(options));
  Session s{options, Progress(progress)};
  NIMBLE_RETURN_IF_ERROR(LoadModel(s));
  NIMBLE_RETURN_IF_ERROR(Warmup(s));
  NIMBLE_RETURN_IF_ERROR(Time(s));
  NIMBLE_RETURN_IF_ERROR(Record(s));
  NIMBLE_RETURN_IF_ERROR(Attribute(s));
  AddRanges(s);
  ProfileResult out;
  out.path = options.output.empty() ? DefaultProfileOutput(options.model) : options.output;
  RunInfo run = MakeRunInfo(s);
  ReportOptions report_options{.run = -1, .store = true, .iteration_range = kProfileIterationRange, .top_gaps = options.top_gaps};
  NIMBLE_ASSIGN_OR_RETURN(out.report, BuildRunReport(run, s.recording.trace, s.model.graph,
                                                     s.measured.attribution.kernels, report_options, out.path));
  s.progress.Step("writing " + out.path + " (" + std::to_string(s.measured.attribution.kernel_count) + " kernels, " +
                  std::to_string(s.recording.trace.api_calls.size()) + " API calls)");
  NIMBLE_ASSIGN_OR_RETURN(out.report.run.id, WriteRun(s, out.path, std::move(run), out.report));
  if (const auto& p = out.report.report.prediction) {
    out.aot_single_ms = static_cast<double>(p->predicted.aot_single_ns) / 1e6;
    out.aot_multi_ms = static_cast<double>(p->predicted.aot_multi_ns) / 1e6;
  }
  out.measured = std::move(s.measured);
  return out;
}

}  // namespace nimble::workflow
