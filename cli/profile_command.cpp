#include "profile_command.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>

#include "nimble/core/median.h"
#include "nimble/workflow/format.h"
#include "nimble/workflow/profile_model.h"
#include "nimble/workflow/report_json.h"
#include "progress_printer.h"
#include "report_printer.h"

namespace nimble::cli {
namespace {

namespace fs = std::filesystem;
using workflow::FormatDuration;
using workflow::FormatFactor;
using workflow::FormatPercent;

struct ProfileArgs {
  std::vector<std::string> inputs;
  bool json = false;
  bool no_optimize = false;
  bool no_tf32 = false;
  bool quiet = false;
  workflow::ProfileOptions options;
};

bool HasModelSuffix(const std::string& arg) {
  for (const char* suffix : {".pt", ".pth", ".ts", ".ptl"}) {
    if (arg.ends_with(suffix)) return true;
  }
  return false;
}

nlohmann::json ProfileJson(const workflow::ProfileResult& r) {
  const workflow::ProfileMeasurements& m = r.measured;
  const analysis::OpAttribution& a = m.attribution;
  return {{"database", r.path},
          {"ops", m.ops},
          {"graph_nodes", m.graph_nodes},
          {"load_ns", m.load_ns},
          {"shape_run_ns", m.shape_run_ns},
          {"latency_ns", m.latency_ns()},
          {"recorded_latency_ns", m.recorded_ns()},
          {"speedup_aot_single_over_latency", r.Speedup(r.aot_single_ms)},
          {"speedup_aot_multi_over_latency", r.Speedup(r.aot_multi_ms)},
          {"warmup_wall_ns", m.warmup_wall_ns},
          {"timed_wall_ns", m.timed_wall_ns},
          {"forward_latency_ns", Median(m.forward_ns)},
          {"forward_timed_ns", m.forward_ns},
          {"profiled_wall_ns", m.profiled_wall_ns},
          {"warmup_median_wall_ns", Median(m.warmup_wall_ns)},
          {"profiled_median_wall_ns", m.recorded_ns()},
          {"eager_vs_forward_max_abs_diff", m.forward_diff},
          {"api_calls_recorded", m.api_calls_recorded},
          {"cupti_libraries", m.cupti_libraries},
          {"attribution", {{"kernels", a.kernel_count}, {"by_external_id", a.by_external_id},
                           {"by_launch_time", a.by_launch_time}, {"unattributed", a.unattributed},
                           {"kernel_ns", a.kernel_ns}, {"unattributed_ns", a.unattributed_ns},
                           {"unattributed_share", a.unattributed_share()}, {"foreign_ids", a.foreign_ids}}}};
}

void PrintProfile(std::ostream& out, const workflow::ProfileResult& r) {
  const workflow::ProfileMeasurements& m = r.measured;
  const analysis::OpAttribution& a = m.attribution;
  const int64_t latency_ns = m.latency_ns();
  const double cost = latency_ns > 0 ? double(m.recorded_ns() - latency_ns) / double(latency_ns) : 0;
  auto row = [&](const std::string& label, const std::string& value) {
    out << "  " << label << std::string(label.size() < 38 ? 38 - label.size() : 1, ' ') << value << "\n";
  };
  out << "Profile\n";
  row("latency per iteration", FormatDuration(latency_ns) + " (median of " + std::to_string(m.timed_wall_ns.size()) +
                                   ", collector off)");
  row("module.forward latency", FormatDuration(Median(m.forward_ns)) + " (median of " +
                                    std::to_string(m.forward_ns.size()) + ", the TorchScript interpreter)");
  row("latency while recorded", FormatDuration(m.recorded_ns()) + " (collector cost " + FormatPercent(cost) + ")");
  row("AoT single stream, predicted", FormatDuration(int64_t(r.aot_single_ms * 1e6)) + "  " +
                                          FormatFactor(r.Speedup(r.aot_single_ms)) + " over that latency");
  row("AoT multi-stream, predicted", FormatDuration(int64_t(r.aot_multi_ms * 1e6)) + "  " +
                                         FormatFactor(r.Speedup(r.aot_multi_ms)) + " over that latency");
  row("kernels attributed to ops", std::to_string(a.kernel_count - a.unattributed) + " of " +
                                       std::to_string(a.kernel_count) + " (" + std::to_string(a.by_launch_time) +
                                       " by launch time); unattributed GPU time " + FormatPercent(a.unattributed_share()));
  std::ostringstream diff;
  diff << "max |difference| " << m.forward_diff;
  row("eager run against forward", diff.str());
  row("stored in", r.path);
}

int RunProfile(ProfileArgs& args) {
  auto shapes = workflow::ParseShapes(args.inputs);
  if (!shapes.ok()) return ReportError(shapes.status());
  args.options.inputs = std::move(*shapes);
  args.options.optimize = !args.no_optimize;
  args.options.tf32 = !args.no_tf32;
  ProgressPrinter printer("nimble-prof", args.quiet);
  auto result = workflow::ProfileModel(args.options, printer.Callback());
  if (!result.ok()) return ReportError(result.status());
  if (args.json) {
    nlohmann::json run = workflow::ReportToJson(result->report);
    run["profile"] = ProfileJson(*result);
    std::cout << nlohmann::json{{"database", result->path}, {"runs", nlohmann::json::array({run})}}.dump(2) << "\n";
  } else {
    PrintReport(std::cout, result->report);
    std::cout << "\n";
    PrintProfile(std::cout, *result);
  }
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

void RegisterProfileCommand(CLI::App& app, Action& action, const std::string& command_line) {
  auto* cmd = app.add_subcommand("profile", "Profile a TorchScript model on the GPU: op-attributed kernels, idle "
                                            "gaps, critical path, optimal streams and predicted AoT speedup "
                                            "(also: nimble-prof model.pt --input ...)");
  auto args = std::make_shared<ProfileArgs>();
  workflow::ProfileOptions& o = args->options;
  o.command_line = command_line;
  cmd->add_option("model", o.model, "TorchScript model file (torch.jit.trace/script, then save)")->required();
  // One shape per --input, so that a positional after it stays the model.
  cmd->add_option("--input", args->inputs, "shape of a model input, e.g. 1x3x224x224; once per input")
      ->allow_extra_args(false);
  cmd->add_option("-o,--output", o.output, "run database (default: <model stem>.nimble.db here; "
                                           "an existing one gets a new run)");
  cmd->add_option("--iters", o.iters, "recorded iterations")->check(CLI::Range(1, 100000))->capture_default_str();
  cmd->add_option("--timed-iters", o.timed_iters,
                  "iterations timed with the collector off, op by op and as module.forward: the latency")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--warmup", o.warmup, "unrecorded iterations first (one runs even at 0: it checks outputs)")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
  cmd->add_option("--device", o.device, "cuda or cuda:N")->capture_default_str();
  cmd->add_flag("--no-optimize", args->no_optimize, "skip conv-batchnorm folding");
  cmd->add_flag("--cuda-fusions", o.cuda_fusions,
                "fuse conv+add+relu into cuDNN calls (as nimble-accelerate --cuda-fusions; a recording weighs the "
                "ops of one choice only)");
  cmd->add_flag("--no-tf32", args->no_tf32,
                "fp32 convolutions and matmuls without TF32, as nimble-accelerate runs them (needed for its --db)");
  cmd->add_option("--save-module", o.save_module,
                  "also write the module as profiled (frozen, optimized, specialized to the input shapes) "
                  "to this TorchScript file, for running the same graph elsewhere");
  cmd->add_flag("--json", args->json, "print the report as JSON instead of tables");
  cmd->add_option("--top", o.top_gaps, "number of longest idle gaps to list")->check(CLI::Range(0, 1000));
  cmd->add_flag("-q,--quiet", args->quiet, "no progress lines on stderr");
  cmd->callback([&action, args] { action = [args] { return RunProfile(*args); }; });
}

}  // namespace nimble::cli
