// One table of an Nsight Systems export read row by row, each value checked as it is taken: a NULL
// where a value is required, a wrong type, a value out of range or an end before the start gives the
// row a problem, and the caller skips it whole, counted by reason. Columns older schema versions lack
// may be optional (read as NULL). Single-threaded; borrows its Database, which must outlive it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nimble/core/status.h"
#include "sqlite_db.h"

namespace nimble::store::nsys {

struct Column {
  const char* name;
  bool optional = false;  // absent in some schema versions: reads as NULL there
};

class ExportTable {
 public:
  // Prepares the SELECT of `columns` from `table`, followed by `tail` (a WHERE and/or ORDER BY).
  // FailedPrecondition naming the file, the table and the column when a required column is missing.
  static StatusOr<ExportTable> Open(Database& db, std::string table, std::vector<Column> columns,
                                    std::string_view tail);

  // Advances to the next row: true with a row (its problem cleared), false at the end.
  StatusOr<bool> Next();

  bool IsNull(int col) const;
  // A required integer in [lo, hi]; on NULL, a wrong type or a value out of range, records the row's
  // problem and returns lo.
  int64_t Int(int col, int64_t lo, int64_t hi);
  // A nullable integer: `if_null` for NULL, else as Int.
  int64_t IntOr(int col, int64_t if_null, int64_t lo, int64_t hi);
  // Text or a number as text; nullopt for NULL; a problem for a blob.
  std::optional<std::string> Text(int col);
  // Required start and end columns with end >= start.
  void Interval(int start_col, int end_col, int64_t& start_ns, int64_t& end_ns);
  // A nullable enum column of values 0..max: outside that range (or NULL) it reads as 0, the unknown
  // value of every enum read here, and is noted (the row is kept).
  template <typename E>
  E Enum(int col, int32_t max) {
    if (IsNull(col)) return static_cast<E>(0);
    const int64_t v = IntOr(col, 0, INT64_MIN, INT64_MAX);
    if (v < 0 || v > max) {
      pending_unknown_.push_back(column_name(col) + " " + std::to_string(v));
      return static_cast<E>(0);
    }
    return static_cast<E>(v);
  }

  // Records the row's first problem (later ones are dropped: one reason per skipped row).
  void Fail(std::string_view reason);
  bool row_ok() const { return problem_.empty(); }
  // Counts the current row as skipped for its problem.
  void Skip();

  const std::string& name() const { return table_; }
  const std::string& column_name(int col) const { return columns_[static_cast<size_t>(col)]; }
  int64_t rows_skipped() const { return rows_skipped_; }
  // "end before start (2), streamId out of range (1)": why rows were skipped, by count.
  std::string SkipReasons() const;
  // "copyKind 42" -> rows kept: enum values this build does not know, read as unknown.
  const std::map<std::string, int64_t>& unknown_values() const { return unknown_values_; }

 private:
  ExportTable(std::string table, std::vector<std::string> columns, Statement stmt)
      : table_(std::move(table)), columns_(std::move(columns)), stmt_(std::move(stmt)) {}
  // The storage class of column `col`'s value, as the SELECT encodes it.
  enum class Type : int64_t { kNull = 0, kInteger = 1, kReal = 2, kText = 3, kBlob = 4 };
  Type TypeOf(int col) const { return static_cast<Type>(stmt_.ColumnInt(2 * col + 1)); }
  void FailType(int col);

  std::string table_;
  std::vector<std::string> columns_;
  Statement stmt_;  // column 2i holds column i's value, 2i + 1 its Type
  std::string problem_;
  bool row_skipped_ = false;
  std::vector<std::string> pending_unknown_;  // the current row's unknown enum values
  int64_t rows_skipped_ = 0;
  std::map<std::string, int64_t> skip_reasons_;
  std::map<std::string, int64_t> unknown_values_;
};

}  // namespace nimble::store::nsys
