// The record workflow behind `nimble-prof record -- program args`: runs any CUDA program with the
// CUPTI injection library in its environment, so that the program records its own kernels, copies,
// syncs, API calls and NVTX ranges into the run database, then reads back the run it added. Checks
// everything it can before the program starts (kinds, option combinations, output, program, library).
// Blocks until the program ends; one call at a time per process (it waits for its child).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nimble/core/run.h"
#include "nimble/core/status.h"
#include "nimble/workflow/progress.h"

namespace nimble::workflow {

struct RecordOptions {
  std::string output = "run.db";
  std::string kinds = "all";            // activity kinds, comma-separated
  std::string iteration_range;          // NVTX range that delimits one iteration
  int64_t delay_ms = 0;                 // start capturing this long after CUDA starts
  std::string capture_range;            // capture only while an NVTX range of this name is open
  std::string graph_trace = "node";     // node: a record per graph node; graph: one per launch
  std::string kernel_timestamps = "software";  // software or hardware (Blackwell)
  std::vector<std::string> command;     // the program and its arguments
};

// What the recorded run holds.
struct RecordResult {
  std::string path;
  RunInfo run;
  int64_t kernels = 0, streams = 0, memcpys = 0, memsets = 0, syncs = 0, api_calls = 0, ranges = 0;
  int64_t graph_launches = 0;       // graphs recorded at graph level
  bool hardware_timestamps = false;
  int64_t dropped = 0;              // records CUPTI or the sink lost
  std::vector<StatEntry> problems;  // non-zero warning and error stats
  // How the program ended when not cleanly ("program exited with code 3"); the run was recorded up
  // to that point. Empty for a clean exit.
  std::string program_end;
};

// The activity kinds --kinds takes, comma-separated, for help texts.
std::string KnownActivityKinds();

// An error when the checks fail or the program added no run (the program's end is sent as a warning).
StatusOr<RecordResult> Record(const RecordOptions& options, const ProgressFn& progress = {});

}  // namespace nimble::workflow
