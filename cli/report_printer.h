// Renders an analysis::Report of one run: as terminal tables, or as JSON for scripts.
// Pure functions of their inputs; strings for kernel/op names come from the trace and graph.
#pragma once

#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "nimble/analysis/report.h"
#include "nimble/core/op_graph.h"
#include "nimble/core/run.h"

namespace nimble::cli {

struct ReportContext {
  const RunInfo* run = nullptr;
  const OpGraph* graph = nullptr;  // null without an op graph
  std::string iteration_range;     // NVTX range used for windows; empty: none
};

void PrintReport(std::ostream& out, const analysis::Report& report, const ReportContext& context);
nlohmann::json ReportToJson(const analysis::Report& report, const ReportContext& context);

}  // namespace nimble::cli
