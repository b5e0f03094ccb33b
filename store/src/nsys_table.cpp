#include "nsys_table.h"

#include <set>
#include <utility>

namespace nimble::store::nsys {
namespace {

// The column names `table` has, from PRAGMA table_info (empty for a missing table).
StatusOr<std::set<std::string>> ColumnsOf(Database& db, const std::string& table) {
  NIMBLE_ASSIGN_OR_RETURN(Statement q, db.Prepare("SELECT name FROM pragma_table_info(?1)"));
  q.BindText(1, table);
  std::set<std::string> names;
  while (true) {
    NIMBLE_ASSIGN_OR_RETURN(bool has_row, q.Step());
    if (!has_row) return names;
    names.insert(q.ColumnText(0));
  }
}

std::string Quoted(const std::string& column) { return "\"" + column + "\""; }

}  // namespace

StatusOr<ExportTable> ExportTable::Open(Database& db, std::string table, std::vector<Column> columns,
                                        std::string_view tail) {
  NIMBLE_ASSIGN_OR_RETURN(std::set<std::string> present, ColumnsOf(db, table));
  std::string sql = "SELECT ";
  std::vector<std::string> names;
  for (const Column& c : columns) {
    const std::string name = c.name;
    std::string value = "NULL";
    if (present.count(name) != 0) {
      value = Quoted(name);
    } else if (!c.optional) {
      return FailedPrecondition(db.path() + ": table " + table + " has no column " + name +
                                ", which its export schema version requires");
    }
    if (!names.empty()) sql += ", ";
    sql += value + ", CASE typeof(" + value + ") WHEN 'integer' THEN 1 WHEN 'real' THEN 2 WHEN 'text' THEN 3 " +
           "WHEN 'blob' THEN 4 ELSE 0 END";
    names.push_back(name);
  }
  sql += " FROM " + Quoted(table) + " " + std::string(tail);
  NIMBLE_ASSIGN_OR_RETURN(Statement stmt, db.Prepare(sql));
  return ExportTable(std::move(table), std::move(names), std::move(stmt));
}

StatusOr<bool> ExportTable::Next() {
  // The previous row's unknown enum values count only if the row was kept.
  if (!row_skipped_) {
    for (const std::string& value : pending_unknown_) ++unknown_values_[value];
  }
  pending_unknown_.clear();
  row_skipped_ = false;
  problem_.clear();
  return stmt_.Step();
}

bool ExportTable::IsNull(int col) const { return TypeOf(col) == Type::kNull; }

void ExportTable::FailType(int col) {
  switch (TypeOf(col)) {
    case Type::kNull: Fail(column_name(col) + " is NULL"); return;
    case Type::kReal: Fail(column_name(col) + " is a real number, not an integer"); return;
    case Type::kText: Fail(column_name(col) + " is text, not an integer"); return;
    case Type::kBlob: Fail(column_name(col) + " is a blob, not an integer"); return;
    case Type::kInteger: return;
  }
  Fail(column_name(col) + " has an unknown SQL type");
}

int64_t ExportTable::Int(int col, int64_t lo, int64_t hi) {
  if (TypeOf(col) != Type::kInteger) {
    FailType(col);
    return lo;
  }
  const int64_t v = stmt_.ColumnInt(2 * col);
  if (v < lo || v > hi) {
    Fail(column_name(col) + (v < 0 && lo >= 0 ? " is negative" : " is out of range"));
    return lo;
  }
  return v;
}

int64_t ExportTable::IntOr(int col, int64_t if_null, int64_t lo, int64_t hi) {
  return IsNull(col) ? if_null : Int(col, lo, hi);
}

std::optional<std::string> ExportTable::Text(int col) {
  switch (TypeOf(col)) {
    case Type::kNull: return std::nullopt;
    case Type::kBlob: Fail(column_name(col) + " is a blob, not text"); return std::nullopt;
    default: return stmt_.ColumnText(2 * col);
  }
}

void ExportTable::Interval(int start_col, int end_col, int64_t& start_ns, int64_t& end_ns) {
  start_ns = Int(start_col, INT64_MIN, INT64_MAX);
  end_ns = Int(end_col, INT64_MIN, INT64_MAX);
  if (row_ok() && end_ns < start_ns) Fail(column_name(end_col) + " is before " + column_name(start_col));
}

void ExportTable::Fail(std::string_view reason) {
  if (problem_.empty()) problem_ = reason;
}

void ExportTable::Skip() {
  row_skipped_ = true;
  ++rows_skipped_;
  ++skip_reasons_[problem_.empty() ? std::string("unusable") : problem_];
}

std::string ExportTable::SkipReasons() const {
  std::string out;
  for (const auto& [reason, rows] : skip_reasons_) {
    if (!out.empty()) out += ", ";
    out += reason + " (" + std::to_string(rows) + ")";
  }
  return out;
}

}  // namespace nimble::store::nsys
