// The Chrome export workflow: the runs of an open database as one Chrome Trace Event Format file that
// Perfetto, chrome://tracing and Kineto readers (Holistic Trace Analysis) open. Every figure it shows
// comes from BuildRunReport; the file is streamed event by event into `<out>.partial` and renamed only
// when complete, so an error leaves no output behind. One thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nimble/core/status.h"
#include "nimble/store/run_database.h"
#include "nimble/workflow/progress.h"

namespace nimble::workflow {

struct ChromeExportOptions {
  int64_t run = -1;             // -1: every run of the database, each in its own group of processes
  std::string iteration_range;  // NVTX range text of one iteration, as `report`; empty: detected
};

// What one run contributed to the file.
struct ChromeRunSummary {
  int64_t run = 0;
  int64_t kernels = 0;           // "kernel" events (every kernel record of the run)
  int64_t copies = 0;            // "gpu_memcpy" and "gpu_memset" events
  int64_t api_calls = 0;         // "cuda_runtime" and "cuda_driver" events
  int64_t ranges = 0;            // NVTX ranges
  int64_t flows = 0;             // launch → GPU work arrows
  int64_t idle_gaps = 0;         // events on the "Idle gaps" tracks
  int64_t idle_ns = 0;           // their summed length: the report's idle time, device by device
  int64_t critical_path_ops = 0; // op-graph critical path ops placed on the timeline
  int64_t trace_critical_path_segments = 0;  // host + GPU critical path segments (0 until it is available)
  int64_t assigned_ops = 0;      // ops placed on "Stream assignment" tracks
  int64_t overflow_tracks = 0;   // extra tracks opened because events on one track overlapped without nesting
};

struct ChromeExportResult {
  std::string path;                    // the file written
  bool gzip = false;                   // written gzip-compressed (the path ends in ".gz")
  int64_t events = 0;                  // every event in the file, metadata included
  int64_t bytes = 0;                   // size of the file as written
  int64_t base_time_ns = 0;            // "baseTimeNanoseconds": every ts is µs after it
  std::vector<ChromeRunSummary> runs;  // in run id order
};

// Writes the runs of `db` (or options.run) to `out_path` (gzip when it ends in ".gz"). NotFound when the
// database holds no run or not the one asked for; DataLoss when a run's records are inconsistent;
// errors name the database or the output file. `out_path` is replaced only on success.
StatusOr<ChromeExportResult> ExportChrome(const store::RunDatabase& db, const std::string& out_path,
                                          const ChromeExportOptions& options, const ProgressFn& progress = {});

}  // namespace nimble::workflow
