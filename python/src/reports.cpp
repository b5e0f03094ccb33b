// Reports of recorded runs: the report workflow on one open database, returned as the JSON text of
// `nimble-prof report --json` (the Python side parses it). Runs with the GIL released.
#include <pybind11/pybind11.h>

#include <string>

#include "bindings.h"
#include "nimble/workflow/info.h"
#include "nimble/workflow/report.h"
#include "nimble/workflow/report_json.h"
#include "status_errors.h"

namespace nimble::python {
namespace py = pybind11;

namespace {

std::string ReportJson(const std::string& path, int64_t run, bool store, const std::string& iteration_range,
                       size_t top_gaps) {
  StatusOr<std::string> text = [&]() -> StatusOr<std::string> {
    py::gil_scoped_release released;
    NIMBLE_ASSIGN_OR_RETURN(workflow::ReportDatabase opened, workflow::OpenForReport(path, store));
    if (store && !opened.not_stored.empty()) return FailedPrecondition(path + ": " + opened.not_stored);
    workflow::ReportOptions options;
    options.run = run;
    options.store = store;
    options.iteration_range = iteration_range;
    options.top_gaps = top_gaps;
    NIMBLE_ASSIGN_OR_RETURN(workflow::ReportResult result, workflow::Report(*opened.db, options));
    return workflow::ReportResultToJson(result).dump();
  }();
  return Unwrap(std::move(text));
}

}  // namespace

void BindReports(py::module_& m) {
  m.def("report", &ReportJson, py::arg("path"), py::arg("run") = -1, py::arg("store") = false,
        py::arg("iteration_range") = "", py::arg("top_gaps") = 10,
        "JSON text of the report of the runs in a run database (nimble-prof report --json).");
}

}  // namespace nimble::python
