// One open run database for the whole of a workflow: every read goes through reader(), and results
// computed from a run (metrics, speedups, stream assignment) are stored on the same connection, so a
// command opens its file once. Opened for reading only (which never changes the file), or for reading
// and storing results (which needs a writable file of the current schema: an older one is refused,
// never upgraded behind the user's back). The file is checked on open. Errors name it. One thread.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>

#include "nimble/core/op_graph.h"
#include "nimble/core/run.h"
#include "nimble/core/schedule.h"
#include "nimble/core/status.h"
#include "nimble/store/run_reader.h"

namespace nimble::store {

enum class Access { kRead, kReadWrite };

// Results of one run, written together (each table replaced whole).
struct RunResults {
  std::span<const Metric> metrics;
  std::span<const Speedup> speedups;
  const StreamAssignment* assignment = nullptr;  // null: the stored assignment stays
};

class RunDatabase {
 public:
  static StatusOr<std::unique_ptr<RunDatabase>> Open(const std::string& path, Access access);
  // A new, empty database of the current schema at `path`, opened for reading and storing results.
  // AlreadyExists when there is a file.
  static StatusOr<std::unique_ptr<RunDatabase>> Create(const std::string& path);
  ~RunDatabase();

  const std::string& path() const;
  Access access() const { return access_; }
  const RunReader& reader() const { return *reader_; }

  // FailedPrecondition when the database was opened for reading only.
  Status StoreResults(RunId run, const RunResults& results);

  // Adds a run that holds results only (no activity records): its row, its op graph without kernel
  // attribution, and `results`. Returns its id. Same access rule.
  StatusOr<RunId> AddResultRun(const RunInfo& run, const OpGraph& graph, const RunResults& results);

 private:
  RunDatabase(std::unique_ptr<RunReader> reader, Access access);
  Status CheckWritable() const;

  std::unique_ptr<RunReader> reader_;
  Access access_;
};

}  // namespace nimble::store
