// Renders the report of one run (workflow::RunReport) as terminal tables; the JSON form is the
// workflow's (nimble/workflow/report_json.h). Pure function of its input; names of kernels and ops
// come from the report's graph.
#pragma once

#include <ostream>

#include "nimble/workflow/report.h"

namespace nimble::cli {

void PrintReport(std::ostream& out, const workflow::RunReport& report);

}  // namespace nimble::cli
