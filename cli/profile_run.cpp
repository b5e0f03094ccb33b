// `profile` in this process: workflow::ProfileModel, then the run's report and the profiling headline.
// Linked only into nimble-prof-model (it needs libtorch through nimble::workflow_models).
#include "profile_run.h"

#include <iostream>
#include <sstream>

#include "nimble/core/median.h"
#include "nimble/workflow/format.h"
#include "nimble/workflow/profile_model.h"
#include "nimble/workflow/report_json.h"
#include "progress_printer.h"
#include "report_printer.h"

namespace nimble::cli {
namespace {

using workflow::FormatDuration;
using workflow::FormatFactor;
using workflow::FormatPercent;

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

}  // namespace

int RunProfileInProcess(ProfileArgs& args) {
  auto shapes = workflow::ParseInputSpecs(args.inputs);
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


}  // namespace nimble::cli
