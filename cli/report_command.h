// `nimble-prof report run.db`: timeline metrics, idle gaps by cause, critical path, concurrency, stream
// assignment and prediction for each run (or one), as tables or --json; stores the results in the database.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "command.h"
#include "nimble/core/run.h"
#include "nimble/store/run_reader.h"

namespace nimble::cli {

struct ReportArgs {
  std::string path;
  int64_t run = -1;  // -1: every run
  bool json = false;
  bool no_store = false;
  std::string iteration_range;  // empty: detect
  size_t top_gaps = 10;
};

// Builds the report of one run of the database at args.path, read through `reader`: prints its tables
// on stdout or appends its JSON to `json_runs`, and stores the results unless args.no_store. Shared
// with `nimble-prof model.pt`, which reports the run it has just recorded.
Status ReportRun(const store::RunReader& reader, const RunInfo& run, const ReportArgs& args,
                 nlohmann::json& json_runs);

void RegisterReportCommand(CLI::App& app, Action& action);

}  // namespace nimble::cli
