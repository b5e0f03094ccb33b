// The import workflow behind `nimble-prof import FILE -o run.db`: a trace another tool wrote — a
// torch.profiler (Kineto) Chrome-format JSON trace, plain or gzip, or an Nsight Systems SQLite export —
// becomes one run of a run database, so that `report` and the viewer work on it unchanged. The reader is
// chosen by the file's content, never its name. Everything is read and checked before anything is
// written; a new database appears only complete (after an error there is nothing at the output and no
// .partial). Errors name the file and the place. One call at a time per output file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nimble/core/run.h"
#include "nimble/core/status.h"
#include "nimble/workflow/progress.h"

namespace nimble::workflow {

enum class TraceFormat { kKinetoJson, kNsysSqlite };

struct DetectedFormat {
  TraceFormat format = TraceFormat::kKinetoJson;
  bool gzip = false;
};

// By the first bytes: the gzip magic, or JSON text starting with '{' or '[' -> Kineto JSON; the SQLite
// header -> Nsight Systems export. A Nimble run database is refused (it is one already), as are empty
// files, directories and anything else, each with a message naming the file.
StatusOr<DetectedFormat> DetectTraceFormat(const std::string& path);

struct ImportOptions {
  std::string input;
  std::string output;   // run database to write; a new run is added when it exists
  std::string command;  // stored with the run; empty: "nimble-prof import <input>"
  int threads = 0;      // threads that parse a large JSON trace; 0: one per core (same result either way)
};

struct ImportResult {
  std::string input;
  std::string output;
  DetectedFormat format;
  std::string source_format;  // "kineto-json" or "nsys-sqlite"
  RunInfo run;                // as stored, with its id in `output`
  int64_t kernels = 0, memcpys = 0, memsets = 0, syncs = 0, api_calls = 0, ranges = 0, external_correlations = 0,
          overheads = 0, devices = 0, streams = 0;
  std::string iteration_range;      // "ProfilerStep" when the trace marks torch.profiler steps; else empty
  std::vector<StatEntry> stats;     // every import.* stat stored with the run
  std::vector<StatEntry> warnings;  // those of severity warning or worse: what the source lacks

  int64_t events_read() const;  // the "import.events_read" stat
};

// InvalidArgument only for bad options (no output, output is the input); bad input files give DataLoss,
// NotFound, FailedPrecondition or Unimplemented, naming the file.
StatusOr<ImportResult> Import(const ImportOptions& options, const ProgressFn& progress = {});

}  // namespace nimble::workflow
