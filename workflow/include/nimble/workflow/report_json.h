// The JSON form of a run's report: the same figures as the tables, raw nanoseconds, stable keys for
// scripts. The one JSON writer behind `nimble-prof report --json` and the Python package's
// Report.to_json(). Pure functions.
#pragma once

#include <nlohmann/json.hpp>

#include "nimble/core/schedule.h"
#include "nimble/workflow/report.h"

namespace nimble::workflow {

nlohmann::json ReportToJson(const RunReport& report);

// {"streams": n, "op_stream": [...], "syncs": [[src, dst], ...]}: a stream assignment wherever one is
// written (the report's graph section, each mode of an accelerate result).
nlohmann::json AssignmentToJson(const StreamAssignment& assignment);

// {"database": path, "runs": [...]}, as `nimble-prof report --json` prints it.
nlohmann::json ReportResultToJson(const ReportResult& result);

}  // namespace nimble::workflow
