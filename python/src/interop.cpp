// Traces other tools wrote, and runs compared: `nimble-prof import`, `export --format chrome` and `diff`
// as functions returning the JSON text the Python side parses. No GPU needed; the GIL is released while
// a workflow runs.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>

#include <nlohmann/json.hpp>

#include "bindings.h"
#include "nimble/workflow/calibrate.h"
#include "nimble/workflow/diff.h"
#include "nimble/workflow/diff_json.h"
#include "nimble/workflow/export_chrome.h"
#include "nimble/workflow/import.h"
#include "nimble/workflow/report.h"
#include "status_errors.h"

namespace nimble::python {
namespace py = pybind11;

namespace {

std::string ImportTrace(const std::string& input, const std::string& output, int threads) {
  StatusOr<std::string> text = [&]() -> StatusOr<std::string> {
    py::gil_scoped_release released;
    workflow::ImportOptions options;
    options.input = input;
    options.output = output;
    options.threads = threads;
    NIMBLE_ASSIGN_OR_RETURN(workflow::ImportResult result, workflow::Import(options));
    nlohmann::json warnings = nlohmann::json::array();
    for (const StatEntry& w : result.warnings) {
      warnings.push_back({{"name", w.name}, {"value", w.value}, {"description", w.description}});
    }
    return nlohmann::json{{"database", result.output},
                          {"run", result.run.id.value()},
                          {"source_format", result.source_format},
                          {"iteration_range", result.iteration_range},
                          {"events", result.events_read()},
                          {"kernels", result.kernels},
                          {"warnings", warnings}}
        .dump();
  }();
  return Unwrap(std::move(text));
}

std::string ExportChrome(const std::string& database, const std::string& output, int64_t run) {
  StatusOr<std::string> text = [&]() -> StatusOr<std::string> {
    py::gil_scoped_release released;
    NIMBLE_ASSIGN_OR_RETURN(workflow::ReportDatabase opened, workflow::OpenForReport(database, false));
    workflow::ChromeExportOptions options;
    options.run = run;
    NIMBLE_ASSIGN_OR_RETURN(workflow::ChromeExportResult result, workflow::ExportChrome(*opened.db, output, options));
    return nlohmann::json{{"path", result.path}, {"events", result.events}, {"bytes", result.bytes}}.dump();
  }();
  return Unwrap(std::move(text));
}

std::string CalibrateRuns(const std::vector<std::string>& databases, const std::string& output,
                          const std::string& compare, bool anchor, const std::string& precision) {
  StatusOr<std::string> text = [&]() -> StatusOr<std::string> {
    py::gil_scoped_release released;
    workflow::CalibrateOptions options{databases, output, compare, anchor};
    if (!precision.empty()) {
      options.precision = analysis::ParsePrecision(precision);
      if (!options.precision) {
        return InvalidArgument("precision \"" + precision + "\": expected \"float32\", \"half\" or \"unknown\"");
      }
    }
    NIMBLE_ASSIGN_OR_RETURN(workflow::CalibrateResult result, workflow::Calibrate(options));
    return workflow::CalibrationToJson(result).dump();
  }();
  return Unwrap(std::move(text));
}

// The sharing model of a calibration file as a dict (floor, exponent, dispatch, crowding, knee, source);
// raises as LoadCalibration fails.
py::dict ReadCalibration(const std::string& path) {
  const analysis::SharingModel model = Unwrap(workflow::LoadCalibration(path));
  py::dict out;
  out["floor"] = model.floor;
  out["exponent"] = model.exponent;
  out["dispatch"] = std::string(analysis::DispatchName(model.dispatch));
  out["crowding"] = model.crowding;
  out["knee"] = model.knee;
  out["source"] = model.source;
  return out;
}

std::string DiffRuns(const std::string& base, const std::string& now, int64_t base_run, int64_t new_run,
                     double fail_above) {
  StatusOr<std::string> text = [&]() -> StatusOr<std::string> {
    py::gil_scoped_release released;
    workflow::DiffOptions options;
    options.base_run = base_run;
    options.new_run = new_run;
    NIMBLE_ASSIGN_OR_RETURN(workflow::DiffResult result, workflow::DiffFiles(base, now, options));
    const workflow::RegressionGate gate = workflow::CheckRegression(result.diff, fail_above);
    return workflow::DiffResultToJson(result, &gate).dump();
  }();
  return Unwrap(std::move(text));
}

}  // namespace

void BindInterop(py::module_& m) {
  m.def("import_trace", &ImportTrace, py::arg("input"), py::arg("output"), py::arg("threads") = 0,
        "Imports a torch.profiler JSON trace or an Nsight Systems SQLite export as a run (nimble-prof import).");
  m.def("export_chrome", &ExportChrome, py::arg("database"), py::arg("output"), py::arg("run") = -1,
        "Writes runs as Chrome / Perfetto JSON (nimble-prof export --format chrome).");
  m.def("calibrate", &CalibrateRuns, py::arg("databases"), py::arg("output") = std::string(),
        py::arg("compare") = std::string(), py::arg("anchor") = true, py::arg("precision") = std::string(),
        "JSON text of nimble-prof calibrate --json (the GPU-sharing fit), written to output when given; "
        "compare: a calibration file whose model predicts every case too; anchor: each case's kernels scaled "
        "to its single-stream replay (False: as recorded, nimble-prof calibrate --no-anchor); precision: "
        "fit only the cases of that precision (\"float32\", \"half\", \"unknown\"; empty: all).");
  m.def("read_calibration", &ReadCalibration, py::arg("path"),
        "The sharing model of a calibration file: a dict of floor, exponent, dispatch, crowding, knee and source.");
  m.def("diff", &DiffRuns, py::arg("base"), py::arg("new"), py::arg("base_run") = -1, py::arg("new_run") = -1,
        py::arg("fail_above") = 0.0, "JSON text of nimble-prof diff --json, with the regression gate.");
}

}  // namespace nimble::python
