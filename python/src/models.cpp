// The model workflows: profile (nimble-prof model.pt) and accelerate (nimble-accelerate), each called
// with the GIL released and its progress forwarded. Results go back as JSON text built by the same
// writers as the command lines' --json.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "bindings.h"
#include "nimble/workflow/accelerate.h"
#include "nimble/workflow/accelerate_json.h"
#include "nimble/workflow/input_spec.h"
#include "nimble/workflow/profile_model.h"
#include "nimble/workflow/report_json.h"
#include "progress.h"
#include "status_errors.h"

namespace nimble::python {
namespace py = pybind11;

namespace {

std::string Profile(const std::string& model, const std::vector<std::string>& inputs,
                    const std::string& output, int32_t iters, int32_t warmup, int32_t timed_iters,
                    const std::string& device, bool tf32, bool optimize, bool cuda_fusions,
                    const std::string& command_line, py::object progress, const std::string& memory_format) {
  workflow::ProfileOptions options;
  options.memory_format = memory_format;
  options.model = model;
  options.inputs = Unwrap(workflow::ParseInputSpecs(inputs));
  options.output = output;
  options.iters = iters;
  options.warmup = warmup;
  options.timed_iters = timed_iters;
  options.device = device;
  options.tf32 = tf32;
  options.optimize = optimize;
  options.cuda_fusions = cuda_fusions;
  options.command_line = command_line;
  workflow::ProgressFn forward = ForwardProgress(std::move(progress));
  StatusOr<workflow::ProfileResult> result = [&] {
    py::gil_scoped_release released;
    Status checked = workflow::CheckProfileOptions(options);
    if (!checked.ok()) return StatusOr<workflow::ProfileResult>(checked);
    return workflow::ProfileModel(options, forward);
  }();
  const workflow::ProfileResult profiled = Unwrap(std::move(result));
  const workflow::ProfileMeasurements& m = profiled.measured;
  nlohmann::json j = {{"path", profiled.path},
                      {"report", workflow::ReportToJson(profiled.report)},
                      {"latency_ns", m.latency_ns()},
                      {"recorded_ns", m.recorded_ns()},
                      {"aot_single_ms", profiled.aot_single_ms},
                      {"aot_multi_ms", profiled.aot_multi_ms},
                      {"forward_diff", m.forward_diff},
                      {"ops", m.ops},
                      {"graph_nodes", m.graph_nodes}};
  return j.dump();
}

workflow::ModeChoice ParseMode(const std::string& mode) {
  if (mode == "auto") return workflow::ModeChoice::kAuto;
  if (mode == "single") return workflow::ModeChoice::kSingle;
  if (mode == "multi") return workflow::ModeChoice::kMulti;
  ThrowStatus(InvalidArgument("mode '" + mode + "': expected 'auto', 'single' or 'multi'"));
}

std::string Accelerate(const std::string& model, const std::vector<std::string>& inputs,
                       const std::string& output, const std::string& db, int32_t iters, int32_t max_streams,
                       const std::string& mode, bool tf32, bool cuda_fusions, const std::string& device,
                       bool allow_eager_fallback, const std::string& command_line, py::object progress,
                       double memory_budget_mib, double memory_ratio, int32_t record_replays,
                       const std::vector<int64_t>& batch_sizes, const std::vector<std::vector<std::string>>& buckets,
                       const std::string& calibration, bool seed_pool, const std::string& memory_format,
                       const std::string& dump_graphs, bool conv_epilogues, bool cross_stream_reuse,
                       double branch_release_delay, double branch_hold_max_mib, const std::string& branch_hold_order) {
  workflow::AccelerateOptions options;
  if (branch_hold_order != "wait" && branch_hold_order != "size") {
    ThrowStatus(InvalidArgument("branch_hold_order " + branch_hold_order + ": expected 'wait' or 'size'"));
  }
  options.branch_hold_order = branch_hold_order == "size" ? workflow::BranchHoldOrder::kSize : workflow::BranchHoldOrder::kWait;
  if (!(branch_release_delay >= 0 && branch_release_delay <= 1)) {
    ThrowStatus(InvalidArgument("branch_release_delay must be between 0 and 1, got " + std::to_string(branch_release_delay)));
  }
  if (!(branch_hold_max_mib >= 0)) ThrowStatus(InvalidArgument("branch_hold_max_mib must be positive"));
  options.cross_stream_reuse = cross_stream_reuse;
  options.branch_release_delay = branch_release_delay;
  options.branch_hold_max_bytes = static_cast<int64_t>(branch_hold_max_mib * (1 << 20));
  options.conv_epilogues = conv_epilogues;
  options.dump_graphs_dir = dump_graphs;
  options.memory_format = memory_format;
  options.calibration = calibration;
  options.seed_pool = seed_pool;
  options.model = model;
  options.inputs = Unwrap(workflow::ParseInputSpecs(inputs));
  options.output = output;
  options.db = db;
  options.iters = iters;
  options.max_streams = max_streams;
  options.mode = ParseMode(mode);
  options.tf32 = tf32;
  options.cuda_fusions = cuda_fusions;
  options.device = device;
  options.allow_eager_fallback = allow_eager_fallback;
  options.command_line = command_line;
  if (!(memory_budget_mib >= 0)) ThrowStatus(InvalidArgument("memory_budget_mib must be positive"));
  if (!(memory_ratio >= 0)) ThrowStatus(InvalidArgument("memory_ratio must be positive"));
  options.memory_budget_bytes = static_cast<int64_t>(memory_budget_mib * (1 << 20));
  options.memory_budget_ratio = memory_ratio;
  if (record_replays < 0) {
    ThrowStatus(InvalidArgument("record_replays must be 0 or more, got " + std::to_string(record_replays)));
  }
  options.record_replays = record_replays;
  options.batch_sizes = batch_sizes;
  for (const std::vector<std::string>& bucket : buckets) {
    options.buckets.push_back(Unwrap(workflow::ParseInputSpecs(bucket)));
  }
  if (iters < 1) ThrowStatus(InvalidArgument("iters must be at least 1, got " + std::to_string(iters)));
  if (max_streams < 0) ThrowStatus(InvalidArgument("max_streams must be at least 0, got " + std::to_string(max_streams)));
  workflow::ProgressFn forward = ForwardProgress(std::move(progress));
  StatusOr<workflow::AccelerateResult> result = [&] {
    py::gil_scoped_release released;
    return workflow::Accelerate(options, forward);
  }();
  return workflow::AccelerateResultToJson(Unwrap(std::move(result))).dump();
}

}  // namespace

void BindModels(py::module_& m) {
  m.def("profile", &Profile, py::arg("model"), py::arg("inputs"), py::arg("output"), py::arg("iters"),
        py::arg("warmup"), py::arg("timed_iters"), py::arg("device"), py::arg("tf32"), py::arg("optimize"),
        py::arg("cuda_fusions"), py::arg("command_line"), py::arg("progress"),
        py::arg("memory_format") = std::string("auto"),
        "Profiles a TorchScript file op by op into a run database; JSON text of the result.");
  m.def("accelerate", &Accelerate, py::arg("model"), py::arg("inputs"), py::arg("output"), py::arg("db"),
        py::arg("iters"), py::arg("max_streams"), py::arg("mode"), py::arg("tf32"), py::arg("cuda_fusions"),
        py::arg("device"), py::arg("allow_eager_fallback"), py::arg("command_line"), py::arg("progress"),
        py::arg("memory_budget_mib") = 0.0, py::arg("memory_ratio") = 0.0, py::arg("record_replays") = 10,
        py::arg("batch_sizes") = std::vector<int64_t>{}, py::arg("buckets") = std::vector<std::vector<std::string>>{},
        py::arg("calibration") = std::string(), py::arg("seed_pool") = true,
        py::arg("memory_format") = std::string("auto"), py::arg("dump_graphs") = std::string(),
        py::arg("conv_epilogues") = true, py::arg("cross_stream_reuse") = false,
        py::arg("branch_release_delay") = 0.0, py::arg("branch_hold_max_mib") = 0.0,
        py::arg("branch_hold_order") = std::string("wait"),
        "Ahead-of-time scheduling of a TorchScript file into a model.nimble; JSON text of the result.");
}

}  // namespace nimble::python
