// The JSON form of a run's report: the same figures as the tables, raw nanoseconds, stable keys for
// scripts. The one JSON writer behind `nimble-prof report --json` and the Python package's
// Report.to_json(). Pure functions.
#pragma once

#include <nlohmann/json.hpp>

#include "nimble/workflow/report.h"

namespace nimble::workflow {

nlohmann::json ReportToJson(const RunReport& report);

// {"database": path, "runs": [...]}, as `nimble-prof report --json` prints it.
nlohmann::json ReportResultToJson(const ReportResult& result);

}  // namespace nimble::workflow
