// RunReader's state, shared with RunDatabase (which stores results on the reader's connection).
// Private to the store. Same threading rule as RunReader.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "nimble/store/run_reader.h"
#include "sqlite_db.h"

namespace nimble::store {

class RunReader::Impl {
 public:
  Impl(std::unique_ptr<Database> db, int schema_version) : db_(std::move(db)), schema_version_(schema_version) {}

  Database& db() const { return *db_; }
  int schema_version() const { return schema_version_; }

  // Prepares `sql` (whose one parameter is the run id, when `run` is valid) and calls `read_row`
  // on each row.
  template <typename ReadRow>
  Status ForEachRow(const std::string& sql, RunId run, ReadRow read_row) const {
    NIMBLE_ASSIGN_OR_RETURN(Statement q, db_->Prepare(sql));
    if (run.valid()) q.BindInt(1, run.value());
    while (true) {
      NIMBLE_ASSIGN_OR_RETURN(bool has_row, q.Step());
      if (!has_row) return OkStatus();
      read_row(q);
    }
  }

  StatusOr<std::vector<RunInfo>> ReadRuns(const std::string& where, RunId run) const {
    std::vector<RunInfo> runs;
    NIMBLE_RETURN_IF_ERROR(ForEachRow(
        "SELECT runId, model, inputs, device, mode, command, iterations, warmup, createdUnixS FROM runs " + where,
        run, [&](const Statement& row) {
          RunInfo& r = runs.emplace_back();
          r.id = RunId(row.ColumnInt(0));
          r.model = row.ColumnText(1);
          r.inputs = row.ColumnText(2);
          r.device = row.ColumnText(3);
          r.mode = row.ColumnText(4);
          r.command = row.ColumnText(5);
          r.iterations = static_cast<int32_t>(row.ColumnInt(6));
          r.warmup = static_cast<int32_t>(row.ColumnInt(7));
          r.created_unix_s = row.ColumnInt(8);
        }));
    return runs;
  }

 private:
  std::unique_ptr<Database> db_;
  int schema_version_;
};

}  // namespace nimble::store
