// The report workflow: every figure `nimble-prof report` shows for the runs of a database (timeline
// metrics, idle gaps by cause, critical path, concurrency, stream assignment, prediction), computed
// by analysis::BuildReport on the runs as stored, and stored back into the same open database unless
// asked not to. Also builds the report of a run still in memory (model profiling). One thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "nimble/analysis/report.h"
#include "nimble/core/op_graph.h"
#include "nimble/core/run.h"
#include "nimble/core/status.h"
#include "nimble/core/trace.h"
#include "nimble/store/run_database.h"

namespace nimble::workflow {

struct ReportOptions {
  int64_t run = -1;             // -1: every run
  bool store = true;            // write metrics, speedups and assignment back into the database
  std::string iteration_range;  // NVTX range text of one iteration; empty: detected
  size_t top_gaps = 10;         // longest idle gaps listed per device
};

// One run's report with what it was computed from (names of ops and kernels for printing).
struct RunReport {
  RunInfo run;
  std::string iteration_range;  // the NVTX range used for iteration windows; empty: none
  OpGraph graph;                // empty without an op graph
  analysis::Report report;
  std::vector<std::string> warnings;  // what the user should know about this report (e.g. a range that matched nothing)
  // A run with no recorded activity (nimble-accelerate's result runs): the whole-run metrics stored with
  // it (latencies, memory, streams), which the report shows and never replaces.
  std::vector<Metric> stored_metrics;

  const OpGraph* graph_or_null() const { return graph.ops.empty() ? nullptr : &graph; }
};

struct ReportResult {
  std::string path;
  std::vector<RunReport> runs;  // in run id order
};

// An open database for a report, and why results will not be stored in it ("" when they will).
struct ReportDatabase {
  std::unique_ptr<store::RunDatabase> db;
  std::string not_stored;
};

// Opens `path` for storing results when `store` is asked and the file allows it (writable, current
// schema); otherwise for reading only, which never changes the file, with the reason in not_stored.
StatusOr<ReportDatabase> OpenForReport(const std::string& path, bool store);

// Run `run` of a database, or every run of it when `run` is -1: NotFound when it holds none or not that one.
StatusOr<std::vector<RunInfo>> SelectRuns(const store::RunReader& reader, int64_t run);

// The runs of `db` (or options.run), each reported; stored when options.store (which needs a database
// opened for writing). NotFound when the database holds no run or not the one asked for.
StatusOr<ReportResult> Report(store::RunDatabase& db, const ReportOptions& options);

// The report of one run from its records: `graph` may be empty, `attribution` then too.
// `where` names the run in errors ("run.db, run 3").
StatusOr<RunReport> BuildRunReport(const RunInfo& run, const Trace& trace, OpGraph graph,
                                   std::span<const KernelAttribution> attribution, const ReportOptions& options,
                                   const std::string& where);

// Metrics, speedups and assignment of a report, as the store keeps them.
struct StoredResults {
  std::vector<Metric> metrics;
  std::vector<Speedup> speedups;
  std::optional<StreamAssignment> assignment;
};
StoredResults ResultsOf(const RunReport& report);

}  // namespace nimble::workflow
