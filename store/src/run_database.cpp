#include "nimble/store/run_database.h"

#include "digests.h"
#include "nimble/store/schema.h"
#include "open_database.h"
#include "results_writer.h"
#include "run_reader_impl.h"

namespace nimble::store {

RunDatabase::RunDatabase(std::unique_ptr<RunReader> reader, Access access)
    : reader_(std::move(reader)), access_(access) {}

RunDatabase::~RunDatabase() = default;

StatusOr<std::unique_ptr<RunDatabase>> RunDatabase::Open(const std::string& path, Access access) {
  std::unique_ptr<Database> db;
  if (access == Access::kReadWrite) {
    NIMBLE_ASSIGN_OR_RETURN(db, OpenForStoringResults(path));
  } else {
    NIMBLE_ASSIGN_OR_RETURN(db, OpenForReading(path));
  }
  NIMBLE_ASSIGN_OR_RETURN(std::unique_ptr<RunReader> reader, RunReader::FromDatabase(std::move(db)));
  return std::unique_ptr<RunDatabase>(new RunDatabase(std::move(reader), access));
}

StatusOr<std::unique_ptr<RunDatabase>> RunDatabase::Create(const std::string& path) {
  NIMBLE_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, CreateNewDatabase(path, kSchemaVersion));
  NIMBLE_ASSIGN_OR_RETURN(std::unique_ptr<RunReader> reader, RunReader::FromDatabase(std::move(db)));
  return std::unique_ptr<RunDatabase>(new RunDatabase(std::move(reader), Access::kReadWrite));
}

const std::string& RunDatabase::path() const { return reader_->path(); }

Status RunDatabase::CheckWritable() const {
  if (access_ == Access::kReadWrite) return OkStatus();
  return FailedPrecondition(path() + ": opened for reading only; results were not stored");
}

Status RunDatabase::StoreResults(RunId run, const RunResults& results) {
  NIMBLE_RETURN_IF_ERROR(CheckWritable());
  Database& db = reader_->impl_->db();
  NIMBLE_RETURN_IF_ERROR(CheckRunExists(db, run));
  NIMBLE_RETURN_IF_ERROR(ReplaceMetrics(db, run, results.metrics));
  NIMBLE_RETURN_IF_ERROR(ReplaceSpeedups(db, run, results.speedups));
  if (results.assignment != nullptr) NIMBLE_RETURN_IF_ERROR(ReplaceAssignment(db, run, *results.assignment));
  return OkStatus();
}

StatusOr<RunId> RunDatabase::AddResultRun(const RunInfo& run, const OpGraph& graph, const RunResults& results) {
  NIMBLE_RETURN_IF_ERROR(CheckWritable());
  Database& db = reader_->impl_->db();
  NIMBLE_ASSIGN_OR_RETURN(const RunId id, InsertRun(db, run));
  NIMBLE_RETURN_IF_ERROR(ReplaceGraph(db, id, graph, {}));
  NIMBLE_RETURN_IF_ERROR(StoreResults(id, results));
  NIMBLE_RETURN_IF_ERROR(WriteDigests(db, id));
  return id;
}

}  // namespace nimble::store
