#include "profile_command.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>

#include "format.h"
#include "nimble/core/median.h"
#include "nimble/store/run_reader.h"
#include "report_command.h"

#if NIMBLE_MODEL_PROFILING
#include "nimble/accelerate/cuda_devices.h"
#include "nimble/accelerate/eager_runner.h"
#include "nimble/accelerate/model_graph.h"
#include "nimble/accelerate/model_timing.h"
#include "nimble/collector/in_process_session.h"
#include "nimble/analysis/op_attribution.h"
#include "nimble/store/run_writer.h"
#endif

// The command's steps: check the arguments, load the model on the GPU (front end), run warmup
// iterations unrecorded, record the measured iterations in-process (op brackets carry external
// correlation ids), attribute kernels to ops, write the run, report it.

namespace nimble::cli {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct ProfileArgs {
  std::string model;
  std::vector<std::string> inputs;
  std::string output;  // empty: DefaultProfileOutput(model)
  int32_t iters = 20;
  int32_t warmup = 5;
  int32_t timed_iters = 100;  // collector off: the latency, op by op and module.forward
  std::string device = "cuda";
  bool json = false;
  bool no_optimize = false;
  bool cuda_fusions = false;
  bool no_tf32 = false;
  std::string save_module;  // where to write the module as profiled (empty: nowhere)
  bool quiet = false;
  size_t top_gaps = 10;
  std::string command_line;
};

// The NVTX-like range each measured iteration is recorded as; `report` finds iterations by it.
constexpr char kIterationRange[] = "nimble-prof iteration";
constexpr char kOpRangeDomain[] = "nimble-prof op";

bool HasModelSuffix(const std::string& arg) {
  for (const char* suffix : {".pt", ".pth", ".ts", ".ptl"}) {
    if (arg.ends_with(suffix)) return true;
  }
  return false;
}

// Progress on stderr: one line per step, and while iterating at most one line a second.
class Progress {
 public:
  explicit Progress(bool quiet) : quiet_(quiet), last_(Clock::now()) {}
  void Line(const std::string& text) {
    if (!quiet_) std::cerr << "nimble-prof: " << text << std::endl;
    last_ = Clock::now();
  }
  void Tick(const std::string& what, int32_t done, int32_t total) {
    if (done == total || Clock::now() - last_ >= std::chrono::seconds(1)) {
      Line(what + " " + std::to_string(done) + "/" + std::to_string(total));
    }
  }

 private:
  bool quiet_;
  Clock::time_point last_;
};

// Fails before any GPU work when the run could not be stored: a missing directory, a directory in the
// file's place, or an existing file that is not a run database.
Status CheckOutput(const std::string& path) {
  std::error_code ec;
  const fs::path p(path);
  if (fs::is_directory(p, ec)) return InvalidArgument("-o " + path + ": is a directory");
  const fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  if (!fs::is_directory(dir, ec)) return InvalidArgument("-o " + path + ": directory " + dir.string() + " does not exist");
  if (!fs::exists(p, ec)) return OkStatus();
  auto reader = store::RunReader::Open(path);
  return reader.ok() ? OkStatus() : reader.status().WithContext("-o " + path + " exists and cannot take a new run");
}

Status CheckArgs(const ProfileArgs& args, std::vector<std::vector<int64_t>>& shapes) {
  if (args.inputs.empty()) return InvalidArgument("--input is required: the shape of each model input, e.g. 1x3x224x224");
  for (const std::string& text : args.inputs) {
    auto shape = ParseInputShape(text);
    if (!shape.ok()) return shape.status();
    shapes.push_back(*shape);
  }
  if (!args.device.starts_with("cuda")) {
    return InvalidArgument("--device " + args.device + ": nimble-prof profiles GPU runs; use cuda or cuda:N");
  }
  return CheckOutput(args.output.empty() ? DefaultProfileOutput(args.model) : args.output);
}

#if NIMBLE_MODEL_PROFILING

const Status kNoGpu = FailedPrecondition(
    "no CUDA device: nimble-prof model.pt needs a GPU; `nimble-prof report` works on recorded runs without one");

// Pushes op id + 1 around each op's nodes and notes the op's host bracket on the records' clock.
class BracketRecorder : public OpObserver {
 public:
  BracketRecorder(collector::InProcessSession& session, ThreadId thread) : session_(session), thread_(thread) {}
  void OnOpBegin(OpId op) override {
    Note(session_.PushExternalId(static_cast<uint64_t>(op.value()) + 1));
    begin_ns_ = Now();
  }
  void OnOpEnd(OpId op) override {
    const int64_t end_ns = Now();
    Note(session_.PopExternalId());
    brackets_.push_back(analysis::OpBracket{op, thread_, begin_ns_, end_ns});
  }
  int64_t Now() {
    auto now = session_.NowNs();
    Note(now.status());
    return now.ok() ? *now : 0;
  }
  const Status& status() const { return status_; }
  std::vector<analysis::OpBracket>& brackets() { return brackets_; }

 private:
  void Note(const Status& s) {
    if (status_.ok() && !s.ok()) status_ = s;
  }
  collector::InProcessSession& session_;
  ThreadId thread_;
  int64_t begin_ns_ = 0;
  std::vector<analysis::OpBracket> brackets_;
  Status status_;
};

struct Measurement {
  ModelGraph model;
  std::string device_name;
  std::unique_ptr<EagerRunner> runner;
  std::vector<int64_t> warmup_wall_ns;    // steady clock, collector off
  std::vector<int64_t> timed_wall_ns;     // steady clock, collector off: the latency reported
  std::vector<int64_t> forward_ns;        // module.forward (the interpreter), CUDA events, collector off
  std::vector<int64_t> profiled_wall_ns;  // steady clock, collector on
  double forward_diff = -1;               // eager outputs against the module's forward
  std::vector<analysis::TimeWindow> windows;
  std::vector<analysis::OpBracket> brackets;
  collector::InProcessRecording recording;
  analysis::OpAttribution attribution;
};

Status LoadModel(const ProfileArgs& args, const std::vector<std::vector<int64_t>>& shapes, Measurement& m,
                 Progress& progress) {
  progress.Line("loading " + args.model + " on " + args.device);
  if (args.no_tf32) DisableTf32();
  const FrontEndOptions options{.optimize = !args.no_optimize, .cuda_fusions = args.cuda_fusions, .device = args.device};
  auto loaded = LoadModelGraph(args.model, shapes, options);
  if (!loaded.ok() && loaded.status().code() == StatusCode::kUnavailable && CudaDeviceCount() == 0) return kNoGpu;
  if (!loaded.ok()) return loaded.status();
  m.model = std::move(loaded).value();
  NIMBLE_ASSIGN_OR_RETURN(m.device_name, CudaDeviceName(m.model.model.device()));
  progress.Line("loaded " + std::to_string(m.model.graph.ops.size()) + " ops, " +
                std::to_string(m.model.graph.edges.size()) + " edges from " + std::to_string(m.model.graph_nodes) +
                " graph nodes on " + m.device_name + " (load " + FormatDuration(m.model.load_ns) + ", shape run " +
                FormatDuration(m.model.shape_run_ns) + ")");
  if (!args.save_module.empty()) NIMBLE_RETURN_IF_ERROR(m.model.model.Save(args.save_module));
  NIMBLE_ASSIGN_OR_RETURN(m.runner, EagerRunner::Create(m.model));
  return OkStatus();
}

// Unrecorded iterations (cuDNN and cuBLAS set up, the caching allocator filled), then one check that
// the node-by-node run computes what the model's own forward computes.
Status Warmup(const ProfileArgs& args, Measurement& m, Progress& progress) {
  for (int32_t i = 0; i < std::max(args.warmup, 1); ++i) {
    NIMBLE_ASSIGN_OR_RETURN(const int64_t wall_ns, m.runner->RunIteration(nullptr));
    if (i < args.warmup) m.warmup_wall_ns.push_back(wall_ns);
    progress.Tick("warmup", i + 1, std::max(args.warmup, 1));
  }
  NIMBLE_ASSIGN_OR_RETURN(m.forward_diff, m.runner->MaxDifferenceFromForward());
  return OkStatus();
}

// The latency reported: iterations timed with the collector off, since recording costs host time
// per launch and eager inference is bound by the host.
Status Time(const ProfileArgs& args, Measurement& m, Progress& progress) {
  for (int32_t i = 0; i < args.timed_iters; ++i) {
    NIMBLE_ASSIGN_OR_RETURN(const int64_t wall_ns, m.runner->RunIteration(nullptr));
    m.timed_wall_ns.push_back(wall_ns);
    progress.Tick("timed iteration", i + 1, args.timed_iters);
  }
  // The module's own forward, as other tools time it (crosscheck.py: the interpreter with its fusers
  // off, so that both run the graph profiled here).
  NIMBLE_ASSIGN_OR_RETURN(m.forward_ns, TimeForward(m.model.model, args.warmup, args.timed_iters,
                                                    /*executor_optimizations=*/false));
  return OkStatus();
}

Status Record(const ProfileArgs& args, Measurement& m, Progress& progress) {
  NIMBLE_ASSIGN_OR_RETURN(auto session, collector::InProcessSession::Start());
  BracketRecorder recorder(*session, ThreadId(static_cast<int64_t>(::gettid())));
  for (int32_t i = 0; i < args.iters; ++i) {
    const int64_t start_ns = recorder.Now();
    NIMBLE_ASSIGN_OR_RETURN(const int64_t wall_ns, m.runner->RunIteration(&recorder));
    const int64_t end_ns = recorder.Now();
    NIMBLE_RETURN_IF_ERROR(recorder.status().WithContext("in-process collector"));
    m.windows.push_back(analysis::TimeWindow{start_ns, end_ns});
    m.profiled_wall_ns.push_back(wall_ns);
    progress.Tick("iteration", i + 1, args.iters);
  }
  m.brackets = std::move(recorder.brackets());
  NIMBLE_ASSIGN_OR_RETURN(m.recording, session->Stop());
  return OkStatus();
}

// Iterations and op brackets become ranges of the trace, so the report, `report` later and the viewer
// find them like NVTX ranges of an injected run.
void AddRanges(Measurement& m) {
  Trace& trace = m.recording.trace;
  const StringId iteration = trace.strings.Intern(kIterationRange);
  const ThreadId thread(static_cast<int64_t>(::gettid()));
  for (const analysis::TimeWindow& w : m.windows) trace.ranges.push_back(NvtxRange{w.start_ns, w.end_ns, thread, iteration, {}});
  const StringId domain = trace.strings.Intern(kOpRangeDomain);
  std::vector<StringId> names;
  for (const Op& op : m.model.graph.ops) names.push_back(trace.strings.Intern(op.name));
  for (const analysis::OpBracket& b : m.brackets) {
    trace.ranges.push_back(NvtxRange{b.start_ns, b.end_ns, b.thread, names[static_cast<size_t>(b.op.value())], domain});
  }
}

Status Attribute(const ProfileArgs& args, Measurement& m) {
  const auto num_ops = static_cast<int32_t>(m.model.graph.ops.size());
  m.attribution = analysis::AttributeKernels(m.recording.trace, num_ops, collector::kPushedCorrelationKind, m.brackets);
  if (m.attribution.kernel_count == 0) {
    return FailedPrecondition(args.model + ": no GPU kernel was recorded in " + std::to_string(args.iters) +
                              " iterations, so there is nothing to profile (does the model run on the host only?)");
  }
  const std::vector<int64_t> times =
      analysis::MedianOpTimes(m.recording.trace, m.attribution.kernels, num_ops, m.windows);
  for (size_t i = 0; i < times.size(); ++i) m.model.graph.ops[i].gpu_time_ns = times[i];
  return OkStatus();
}

std::vector<StatEntry> ProfileStats(const ProfileArgs& args, const Measurement& m) {
  std::vector<StatEntry> stats = m.recording.stats;
  for (StatEntry& s : m.attribution.ToStats()) stats.push_back(std::move(s));
  const bool matches = m.forward_diff >= 0 && m.forward_diff <= 1e-3;
  stats.push_back({"profile.eager_matches_forward", matches ? 1 : 0, matches ? "info" : "warning",
                   "largest |difference| of the node-by-node outputs from the model's forward: " +
                       std::to_string(m.forward_diff)});
  stats.push_back({"profile.tf32_allowed", args.no_tf32 ? 0 : 1, "info",
                   args.no_tf32 ? "fp32 math in IEEE precision (--no-tf32), as nimble-accelerate runs"
                                : "cuDNN could use TF32 for fp32 convolutions (PyTorch's default)"});
  stats.push_back({"profile.warmup_median_wall_ns", Median(m.warmup_wall_ns), "info",
                   "median iteration wall time of the warmup, collector off (" + std::to_string(args.warmup) + ")"});
  stats.push_back({"profile.forward_latency_median_ns", Median(m.forward_ns), "info",
                   "median latency of the module's own forward (TorchScript interpreter, fusers off), collector off (" +
                       std::to_string(args.timed_iters) + ")"});
  stats.push_back({"profile.latency_median_ns", Median(m.timed_wall_ns), "info",
                   "median iteration wall time, collector off: the latency per iteration (" +
                       std::to_string(args.timed_iters) + ")"});
  stats.push_back({"profile.profiled_median_wall_ns", Median(m.profiled_wall_ns), "info",
                   "median iteration wall time, collector on"});
  return stats;
}

StatusOr<RunId> WriteRun(const ProfileArgs& args, const std::string& path, const Measurement& m) {
  RunInfo run;
  run.model = args.model;
  for (const std::string& input : args.inputs) run.inputs += (run.inputs.empty() ? "" : ",") + input;
  run.device = m.device_name;
  run.mode = "eager";
  run.command = args.command_line;
  run.iterations = args.iters;
  run.warmup = args.warmup;
  run.created_unix_s = static_cast<int64_t>(std::time(nullptr));
  NIMBLE_ASSIGN_OR_RETURN(auto writer, store::RunWriter::Create(path, run));
  NIMBLE_RETURN_IF_ERROR(writer->AppendTrace(m.recording.trace));
  NIMBLE_RETURN_IF_ERROR(writer->WriteGraph(m.model.graph, m.attribution.kernels));
  for (const StatEntry& s : ProfileStats(args, m)) NIMBLE_RETURN_IF_ERROR(writer->AddStat(s));
  NIMBLE_RETURN_IF_ERROR(writer->Commit());
  return writer->run_id();
}

// What the report cannot know: the latency with the collector off, and the predicted speedups over it.
struct Headline {
  int64_t latency_ns = 0;        // collector off
  int64_t recorded_ns = 0;       // collector on
  double aot_single_ms = 0;      // predicted, as the report stored it
  double aot_multi_ms = 0;
  double Speedup(double predicted_ms) const { return predicted_ms > 0 ? latency_ns / 1e6 / predicted_ms : 0; }
};

StatusOr<Headline> MakeHeadline(const store::RunReader& reader, RunId id, const Measurement& m) {
  Headline h{.latency_ns = Median(m.timed_wall_ns), .recorded_ns = Median(m.profiled_wall_ns)};
  NIMBLE_ASSIGN_OR_RETURN(const std::vector<Speedup> speedups, reader.LoadSpeedups(id));
  for (const Speedup& s : speedups) {
    if (s.mode == "aot-single") h.aot_single_ms = s.predicted_ms;
    if (s.mode == "aot-multi") h.aot_multi_ms = s.predicted_ms;
  }
  return h;
}

nlohmann::json ProfileJson(const std::string& path, const Measurement& m, const Headline& h) {
  const analysis::OpAttribution& a = m.attribution;
  return {{"database", path},
          {"ops", m.model.graph.ops.size()},
          {"graph_nodes", m.model.graph_nodes},
          {"load_ns", m.model.load_ns},
          {"shape_run_ns", m.model.shape_run_ns},
          {"latency_ns", h.latency_ns},
          {"recorded_latency_ns", h.recorded_ns},
          {"speedup_aot_single_over_latency", h.Speedup(h.aot_single_ms)},
          {"speedup_aot_multi_over_latency", h.Speedup(h.aot_multi_ms)},
          {"warmup_wall_ns", m.warmup_wall_ns},
          {"timed_wall_ns", m.timed_wall_ns},
          {"forward_latency_ns", Median(m.forward_ns)},
          {"forward_timed_ns", m.forward_ns},
          {"profiled_wall_ns", m.profiled_wall_ns},
          {"warmup_median_wall_ns", Median(m.warmup_wall_ns)},
          {"profiled_median_wall_ns", h.recorded_ns},
          {"eager_vs_forward_max_abs_diff", m.forward_diff},
          {"api_calls_recorded", m.recording.trace.api_calls.size()},
          {"cupti_libraries", collector::InProcessSession::MappedCuptiLibraries()},
          {"attribution", {{"kernels", a.kernel_count}, {"by_external_id", a.by_external_id},
                           {"by_launch_time", a.by_launch_time}, {"unattributed", a.unattributed},
                           {"kernel_ns", a.kernel_ns}, {"unattributed_ns", a.unattributed_ns},
                           {"unattributed_share", a.unattributed_share()}, {"foreign_ids", a.foreign_ids}}}};
}

void PrintProfile(std::ostream& out, const std::string& path, const Measurement& m, const Headline& h) {
  const analysis::OpAttribution& a = m.attribution;
  const double cost = h.latency_ns > 0 ? double(h.recorded_ns - h.latency_ns) / double(h.latency_ns) : 0;
  auto row = [&](const std::string& label, const std::string& value) {
    out << "  " << label << std::string(label.size() < 38 ? 38 - label.size() : 1, ' ') << value << "\n";
  };
  out << "Profile\n";
  row("latency per iteration", FormatDuration(h.latency_ns) + " (median of " + std::to_string(m.timed_wall_ns.size()) +
                                   ", collector off)");
  row("module.forward latency", FormatDuration(Median(m.forward_ns)) + " (median of " +
                                    std::to_string(m.forward_ns.size()) + ", the TorchScript interpreter)");
  row("latency while recorded", FormatDuration(h.recorded_ns) + " (collector cost " + FormatPercent(cost) + ")");
  row("AoT single stream, predicted", FormatDuration(int64_t(h.aot_single_ms * 1e6)) + "  " +
                                          FormatFactor(h.Speedup(h.aot_single_ms)) + " over that latency");
  row("AoT multi-stream, predicted", FormatDuration(int64_t(h.aot_multi_ms * 1e6)) + "  " +
                                         FormatFactor(h.Speedup(h.aot_multi_ms)) + " over that latency");
  row("kernels attributed to ops", std::to_string(a.kernel_count - a.unattributed) + " of " +
                                       std::to_string(a.kernel_count) + " (" + std::to_string(a.by_launch_time) +
                                       " by launch time); unattributed GPU time " + FormatPercent(a.unattributed_share()));
  std::ostringstream diff;
  diff << "max |difference| " << m.forward_diff;
  row("eager run against forward", diff.str());
  row("stored in", path);
}

Status Report(const ProfileArgs& args, const std::string& path, RunId id, const Measurement& m) {
  NIMBLE_ASSIGN_OR_RETURN(auto reader, store::RunReader::Open(path));
  NIMBLE_ASSIGN_OR_RETURN(const RunInfo run, reader->Run(id));
  const ReportArgs report_args{.path = path, .run = id.value(), .json = args.json, .no_store = false,
                               .iteration_range = kIterationRange, .top_gaps = args.top_gaps};
  nlohmann::json runs = nlohmann::json::array();
  NIMBLE_RETURN_IF_ERROR(ReportRun(*reader, run, report_args, runs));
  NIMBLE_ASSIGN_OR_RETURN(const Headline headline, MakeHeadline(*reader, id, m));
  if (args.json) {
    runs.back()["profile"] = ProfileJson(path, m, headline);
    std::cout << nlohmann::json{{"database", path}, {"runs", runs}}.dump(2) << "\n";
  } else {
    PrintProfile(std::cout, path, m, headline);
  }
  return OkStatus();
}

Status Profile(const ProfileArgs& args, const std::vector<std::vector<int64_t>>& shapes) {
  Progress progress(args.quiet);
  Measurement m;
  NIMBLE_RETURN_IF_ERROR(LoadModel(args, shapes, m, progress));
  progress.Line("warmup: " + std::to_string(args.warmup) + " iterations, not recorded");
  NIMBLE_RETURN_IF_ERROR(Warmup(args, m, progress));
  progress.Line("timing " + std::to_string(args.timed_iters) + " iterations and module.forward, collector off");
  NIMBLE_RETURN_IF_ERROR(Time(args, m, progress));
  progress.Line("profiling " + std::to_string(args.iters) + " iterations, collector on");
  NIMBLE_RETURN_IF_ERROR(Record(args, m, progress));
  NIMBLE_RETURN_IF_ERROR(Attribute(args, m));
  AddRanges(m);
  const std::string path = args.output.empty() ? DefaultProfileOutput(args.model) : args.output;
  progress.Line("writing " + path + " (" + std::to_string(m.attribution.kernel_count) + " kernels, " +
                std::to_string(m.recording.trace.api_calls.size()) + " API calls)");
  NIMBLE_ASSIGN_OR_RETURN(const RunId id, WriteRun(args, path, m));
  return Report(args, path, id, m);
}

#else  // built without libtorch or without CUDA

Status Profile(const ProfileArgs&, const std::vector<std::vector<int64_t>>&) {
  return FailedPrecondition(
      "this nimble-prof was built without model profiling (it needs libtorch and CUDA): configure with "
      "-DNIMBLE_WITH_TORCH=ON -DNIMBLE_WITH_CUDA=ON; `nimble-prof report` works on recorded runs");
}

#endif

int RunProfile(const ProfileArgs& args) {
  std::vector<std::vector<int64_t>> shapes;
  if (Status s = CheckArgs(args, shapes); !s.ok()) return ReportError(s);
  if (Status s = Profile(args, shapes); !s.ok()) return ReportError(s);
  return kExitOk;
}

}  // namespace

std::vector<std::string> RewriteModelShorthand(std::vector<std::string> argv, const std::vector<std::string>& commands) {
  if (argv.size() < 2) return argv;
  const std::string& first = argv[1];
  if (first.empty() || first.front() == '-') return argv;
  if (std::find(commands.begin(), commands.end(), first) != commands.end()) return argv;
  std::error_code ec;
  if (HasModelSuffix(first) || fs::is_regular_file(first, ec)) argv.insert(argv.begin() + 1, "profile");
  return argv;
}

StatusOr<std::vector<int64_t>> ParseInputShape(const std::string& text) {
  std::vector<int64_t> shape;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t x = std::min(text.find('x', pos), text.size());
    const std::string part = text.substr(pos, x - pos);
    const bool digits = !part.empty() && part.size() <= 12 &&
                        std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits || std::stoll(part) <= 0) {
      return InvalidArgument("--input " + text + ": expected positive dimensions joined by 'x', e.g. 1x3x224x224");
    }
    shape.push_back(std::stoll(part));
    pos = x + 1;
  }
  return shape;
}

std::string DefaultProfileOutput(const std::string& model_path) {
  return fs::path(model_path).stem().string() + ".nimble.db";
}

void RegisterProfileCommand(CLI::App& app, Action& action, const std::string& command_line) {
  auto* cmd = app.add_subcommand("profile", "Profile a TorchScript model on the GPU: op-attributed kernels, idle "
                                            "gaps, critical path, optimal streams and predicted AoT speedup "
                                            "(also: nimble-prof model.pt --input ...)");
  auto args = std::make_shared<ProfileArgs>();
  args->command_line = command_line;
  cmd->add_option("model", args->model, "TorchScript model file (torch.jit.trace/script, then save)")->required();
  // One shape per --input, so that a positional after it stays the model.
  cmd->add_option("--input", args->inputs, "shape of a model input, e.g. 1x3x224x224; once per input")
      ->allow_extra_args(false);
  cmd->add_option("-o,--output", args->output, "run database (default: <model stem>.nimble.db here; "
                                                "an existing one gets a new run)");
  cmd->add_option("--iters", args->iters, "recorded iterations")->check(CLI::Range(1, 100000))->capture_default_str();
  cmd->add_option("--timed-iters", args->timed_iters,
                  "iterations timed with the collector off, op by op and as module.forward: the latency")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--warmup", args->warmup, "unrecorded iterations first (one runs even at 0: it checks outputs)")->check(CLI::Range(0, 100000))
      ->capture_default_str();
  cmd->add_option("--device", args->device, "cuda or cuda:N")->capture_default_str();
  cmd->add_flag("--no-optimize", args->no_optimize, "skip conv-batchnorm folding");
  cmd->add_flag("--cuda-fusions", args->cuda_fusions,
                "fuse conv+add+relu into cuDNN calls (as nimble-accelerate --cuda-fusions; a recording weighs the "
                "ops of one choice only)");
  cmd->add_flag("--no-tf32", args->no_tf32,
                "fp32 convolutions and matmuls without TF32, as nimble-accelerate runs them (needed for its --db)");
  cmd->add_option("--save-module", args->save_module,
                  "also write the module as profiled (frozen, optimized, specialized to the input shapes) "
                  "to this TorchScript file, for running the same graph elsewhere");
  cmd->add_flag("--json", args->json, "print the report as JSON instead of tables");
  cmd->add_option("--top", args->top_gaps, "number of longest idle gaps to list")->check(CLI::Range(0, 1000));
  cmd->add_flag("-q,--quiet", args->quiet, "no progress lines on stderr");
  cmd->callback([&action, args] { action = [args] { return RunProfile(*args); }; });
}

}  // namespace nimble::cli
