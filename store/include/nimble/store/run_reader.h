// Reads run databases written by RunWriter (any schema version from 1 up; older files are upgraded
// in place when writable). Every error names the file. One reader per thread; readers of the same
// file in different threads or processes are fine (WAL).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "nimble/core/op_graph.h"
#include "nimble/core/run.h"
#include "nimble/core/schedule.h"
#include "nimble/core/status.h"
#include "nimble/core/trace.h"

namespace nimble::store {

struct TableCount {
  std::string table;
  int64_t rows = 0;
  bool view = false;  // a view over other tables (CUPTI_ACTIVITY_KIND_KERNEL since schema version 4)
};

class RunReader {
 public:
  static StatusOr<std::unique_ptr<RunReader>> Open(const std::string& path);
  ~RunReader();

  const std::string& path() const;
  int schema_version() const;

  StatusOr<std::vector<RunInfo>> Runs() const;
  StatusOr<RunInfo> Run(RunId run) const;
  // Kernels in the order they were written: Trace::kernels[i] is KernelIndex(i) of this run.
  StatusOr<Trace> LoadTrace(RunId run) const;
  StatusOr<OpGraph> LoadGraph(RunId run) const;
  StatusOr<std::vector<KernelAttribution>> LoadAttribution(RunId run) const;
  StatusOr<std::optional<StreamAssignment>> LoadAssignment(RunId run) const;
  StatusOr<std::vector<Metric>> LoadMetrics(RunId run) const;
  StatusOr<std::vector<Speedup>> LoadSpeedups(RunId run) const;
  StatusOr<std::vector<StatEntry>> LoadStats(RunId run) const;
  // Row counts of every table and view, for `nimble-prof info`.
  StatusOr<std::vector<TableCount>> TableCounts() const;

  class Impl;

 private:
  friend class RunDatabase;
  // Takes over an open connection to a checked run database.
  static StatusOr<std::unique_ptr<RunReader>> FromDatabase(std::unique_ptr<class Database> db);

  explicit RunReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace nimble::store
