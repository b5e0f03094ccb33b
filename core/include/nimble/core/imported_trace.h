// A trace read from another tool's file (a torch.profiler / Kineto JSON trace, an Nsight Systems SQLite
// export), ready to be stored as a run: its records, the run row, what the source lacks or what could
// not be used (data warnings, counted like the collector's), and the NVTX range text that marks one
// iteration ("" when the source marks none). A value; build it on one thread, then share it read-only.
#pragma once

#include <string>
#include <vector>

#include "nimble/core/run.h"
#include "nimble/core/trace.h"

namespace nimble {

struct ImportedTrace {
  Trace trace;
  RunInfo run;                   // model: the source file; mode: kProgram; command: the import command
  std::vector<StatEntry> stats;  // e.g. "import.no_device_properties" (warning), "import.unlinked_kernels"
  std::string iteration_range;   // e.g. "ProfilerStep"; empty when the source marks no iterations
  std::string source_format;     // "kineto-json" or "nsys-sqlite", for messages and the run's command
};

}  // namespace nimble
