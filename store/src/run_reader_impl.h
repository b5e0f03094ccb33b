// RunReader's state, shared with RunDatabase (which stores results on the reader's connection).
// Private to the store. Same threading rule as RunReader.
#pragma once

#include <memory>
#include <unordered_set>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "nimble/store/run_reader.h"
#include "digests.h"
#include "sqlite_db.h"

namespace nimble::store {

class RunReader::Impl {
 public:
  Impl(std::unique_ptr<Database> db, int schema_version) : db_(std::move(db)), schema_version_(schema_version) {}

  Database& db() const { return *db_; }

  // The digests of the tables a load of `run` reads, checked the first time it reads them.
  Status VerifyOnce(RunId run, DigestScope scope) const {
    const int64_t key = run.value() * 4 + static_cast<int64_t>(scope);
    if (verified_.contains(key)) return OkStatus();
    NIMBLE_RETURN_IF_ERROR(VerifyDigests(*db_, run, scope));
    verified_.insert(key);
    return OkStatus();
  }
  int schema_version() const { return schema_version_; }

  // Prepares `sql` (whose one parameter is the run id, when `run` is valid) and calls `read_row`
  // on each row. A `read_row` that can meet an invalid row returns a Status, and its first error
  // ends the query.
  template <typename ReadRow>
  Status ForEachRow(const std::string& sql, RunId run, ReadRow read_row) const {
    NIMBLE_ASSIGN_OR_RETURN(Statement q, db_->Prepare(sql));
    if (run.valid()) q.BindInt(1, run.value());
    while (true) {
      NIMBLE_ASSIGN_OR_RETURN(bool has_row, q.Step());
      if (!has_row) return OkStatus();
      if constexpr (std::is_void_v<std::invoke_result_t<ReadRow&, const Statement&>>) {
        read_row(q);
      } else {
        NIMBLE_RETURN_IF_ERROR(read_row(q));
      }
    }
  }

  // The enum `parse` finds for the text in column `col` (named `column`) of a row of `table` for run
  // `run`; DataLoss naming the file, the table and the value where the text is none of the names
  // this build knows (a file written by a later Nimble, or edited by hand).
  template <typename Enum>
  StatusOr<Enum> EnumColumn(const Statement& row, int col, std::optional<Enum> (*parse)(std::string_view),
                            const char* table, const char* column, RunId run) const {
    const std::string text = row.ColumnText(col);
    if (std::optional<Enum> value = parse(text)) return *value;
    return DataLoss(db_->path() + ": table " + table + ", run " + std::to_string(run.value()) + ": unknown " +
                    column + " '" + text + "'");
  }

  StatusOr<std::vector<RunInfo>> ReadRuns(const std::string& where, RunId run) const {
    std::vector<RunInfo> runs;
    NIMBLE_RETURN_IF_ERROR(ForEachRow(
        "SELECT runId, model, inputs, device, mode, command, iterations, warmup, createdUnixS FROM runs " + where,
        run, [&](const Statement& row) -> Status {
          RunInfo& r = runs.emplace_back();
          r.id = RunId(row.ColumnInt(0));
          r.model = row.ColumnText(1);
          r.inputs = row.ColumnText(2);
          r.device = row.ColumnText(3);
          NIMBLE_ASSIGN_OR_RETURN(r.mode, EnumColumn(row, 4, ParseRunMode, "runs", "mode", r.id));
          r.command = row.ColumnText(5);
          r.iterations = static_cast<int32_t>(row.ColumnInt(6));
          r.warmup = static_cast<int32_t>(row.ColumnInt(7));
          r.created_unix_s = row.ColumnInt(8);
          return OkStatus();
        }));
    return runs;
  }

 private:
  std::unique_ptr<Database> db_;
  mutable std::unordered_set<int64_t> verified_;
  int schema_version_;
};

}  // namespace nimble::store
