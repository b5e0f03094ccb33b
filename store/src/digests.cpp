#include "digests.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace nimble::store {
namespace {

// The tables a report or the viewer reads for one run, and the shared ones (run 0).
constexpr const char* kRunTables[] = {
    "runs", "TARGET_INFO_GPU", "kernels", "kernel_time_blocks", "CUPTI_ACTIVITY_KIND_MEMCPY",
    "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "CUPTI_ACTIVITY_KIND_RUNTIME",
    "NVTX_EVENTS", "CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION", "CUPTI_ACTIVITY_KIND_OVERHEAD",
    "CUPTI_ACTIVITY_KIND_GRAPH_TRACE", "ops", "op_edges", "op_kernels"};
constexpr const char* kSharedTables[] = {"StringIds", "kernel_launch_configs"};

// What each reader reads, so that it verifies those tables and no others: the viewer asks for a run's
// graph without reading its 10 M kernels through RunReader, and must not pay for re-reading them.
constexpr const char* kGraphTables[] = {"ops", "op_edges"};
constexpr const char* kAttributionTables[] = {"op_kernels", "ops", "kernel_time_blocks"};

bool InScope(const std::string& table, DigestScope scope) {
  auto in = [&](const auto& list) {
    for (const char* t : list) {
      if (table == t) return true;
    }
    return false;
  };
  switch (scope) {
    case DigestScope::kGraph: return in(kGraphTables);
    case DigestScope::kAttribution: return in(kAttributionTables);
    case DigestScope::kTrace: return !in(kGraphTables) && table != "op_kernels";
    case DigestScope::kAll: break;
  }
  return true;
}

uint64_t Mix(uint64_t x) {  // splitmix64's finaliser: every input bit reaches every output bit
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// One step per value: xor, multiply by an odd constant, xorshift. Each step is a bijection of the
// state, so changing any one value of a row always changes its hash (not just with high probability);
// the full mix runs once per row. The digest's cost is SQLite decoding the rows and calling this, not
// the arithmetic: about 0.25 s per million kernel rows either way (bench/results/store_writer.md).
inline uint64_t Step(uint64_t h, uint64_t v) {
  h = (h ^ v) * 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 29);
}

void DigestStep(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  auto* sum = static_cast<uint64_t*>(sqlite3_aggregate_context(ctx, sizeof(uint64_t)));
  if (sum == nullptr) return;
  uint64_t h = 0x84222325CBF29CE4ull;
  for (int i = 0; i < argc; ++i) {
    const int type = sqlite3_value_type(argv[i]);
    h = Step(h, static_cast<uint64_t>(type));
    if (type == SQLITE_INTEGER) {
      h = Step(h, static_cast<uint64_t>(sqlite3_value_int64(argv[i])));
    } else if (type == SQLITE_FLOAT) {
      const double d = sqlite3_value_double(argv[i]);
      uint64_t bits = 0;
      std::memcpy(&bits, &d, sizeof bits);
      h = Step(h, bits);
    } else if (type != SQLITE_NULL) {
      const auto* bytes = static_cast<const unsigned char*>(sqlite3_value_blob(argv[i]));
      const int n = sqlite3_value_bytes(argv[i]);
      for (int b = 0; b < n; b += 8) {
        uint64_t word = 0;
        std::memcpy(&word, bytes + b, static_cast<size_t>(std::min(8, n - b)));
        h = Step(h, word);
      }
      h = Step(h, static_cast<uint64_t>(n));
    }
  }
  *sum += Mix(h);
}

void DigestFinal(sqlite3_context* ctx) {
  auto* sum = static_cast<uint64_t*>(sqlite3_aggregate_context(ctx, 0));
  sqlite3_result_int64(ctx, static_cast<sqlite3_int64>(sum != nullptr ? *sum : 0));
}

// "SELECT count(*), nimble_digest(<every column>) FROM <table>".
StatusOr<std::string> DigestSelect(Database& db, const std::string& table) {
  NIMBLE_ASSIGN_OR_RETURN(Statement info, db.Prepare("SELECT name FROM pragma_table_info(?1)"));
  info.BindText(1, table);
  std::string columns;
  while (true) {
    NIMBLE_ASSIGN_OR_RETURN(bool has_row, info.Step());
    if (!has_row) break;
    columns += (columns.empty() ? "\"" : ", \"") + info.ColumnText(0) + "\"";
  }
  if (columns.empty()) return NotFound(db.path() + ": no table " + table);
  return "SELECT count(*), nimble_digest(" + columns + ") FROM \"" + table + "\"";
}

// DigestSelect with the run's rows: WHERE <the run's rows>.
StatusOr<std::string> DigestSql(Database& db, const std::string& table, bool shared) {
  NIMBLE_ASSIGN_OR_RETURN(const std::string select, DigestSelect(db, table));
  // Shared tables only grow (strings and launch configurations of later runs are appended), so their
  // digest covers the rows up to the last one at writing: a later writer that dies half-way cannot make
  // the runs before it unreadable.
  // `+runId` keeps SQLite from finding the rows through an index and reading indexed columns from it:
  // the digest must see the table's values, which is where the readers read them (same rule there).
  std::string where = " WHERE +runId = ?1";
  if (shared) where = " WHERE rowid <= ?2";
  if (table == "kernels") where = " WHERE id >= (?1 << 32) AND id < ((?1 + 1) << 32)";
  return select + where;
}

struct Digest {
  int64_t rows = 0;
  int64_t value = 0;
  int64_t last_rowid = 0;  // shared tables: the rows covered
};

StatusOr<int64_t> LastRowid(Database& db, const std::string& table) {
  return db.QueryInt("SELECT coalesce(max(rowid), 0) FROM \"" + table + "\"");
}

StatusOr<Digest> Compute(Database& db, const std::string& table, bool shared, RunId run, int64_t last_rowid) {
  NIMBLE_ASSIGN_OR_RETURN(const std::string sql, DigestSql(db, table, shared));
  NIMBLE_ASSIGN_OR_RETURN(Statement q, db.Prepare(sql));
  if (shared) {
    q.BindInt(2, last_rowid);
  } else {
    q.BindInt(1, run.value());
  }
  NIMBLE_ASSIGN_OR_RETURN(bool has_row, q.Step());
  Digest d;
  if (has_row) d = {q.ColumnInt(0), q.ColumnInt(1), last_rowid};
  q.Reset();
  return d;
}

template <typename Fn>
Status ForEachDigestedTable(Database& db, DigestScope scope, Fn fn) {
  for (const char* table : kRunTables) {
    if (InScope(table, scope) && db.TableExists(table)) NIMBLE_RETURN_IF_ERROR(fn(table, false));
  }
  for (const char* table : kSharedTables) {
    if (InScope(table, scope) && db.TableExists(table)) NIMBLE_RETURN_IF_ERROR(fn(table, true));
  }
  return OkStatus();
}

}  // namespace

int RegisterDigestFunction(sqlite3* db) {
  return sqlite3_create_function_v2(db, "nimble_digest", -1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nullptr, nullptr,
                                    DigestStep, DigestFinal, nullptr);
}

namespace {

StatusOr<Statement> PrepareDigestInsert(Database& db) {
  return db.Prepare(
      "INSERT OR REPLACE INTO run_digests (runId, tableName, rowCount, digest, lastRowid) VALUES (?, ?, ?, ?, ?)");
}

Status StoreDigest(Statement& put, RunId run, const TableDigest& d) {
  put.BindInt(1, d.shared ? 0 : run.value());
  put.BindText(2, d.table);
  put.BindInt(3, d.rows);
  put.BindInt(4, d.value);
  if (d.shared) {
    put.BindInt(5, d.last_rowid);
  } else {
    put.BindNull(5);
  }
  return put.Run();
}

// One rowid range of one table, digested by one of the workers.
struct DigestPart {
  size_t table = 0;  // index into the tables
  int64_t first_rowid = 0, last_rowid = 0;
  int64_t rows = 0, value = 0;
};

struct PlannedTable {
  bool by_rowid = true;  // false for a WITHOUT ROWID table, digested whole
  std::string sql;       // over the rowid range ?3 to ?4 when by_rowid, the run's rows (?1) otherwise
};

// The rowids of the table's rows that the digest covers, [first, last] (last < first when none):
// the run's id range of the kernels, the rows up to the last at writing of a shared table, and any
// rowid of the other tables, whose rows the query filters by run.
StatusOr<std::pair<int64_t, int64_t>> RowidBounds(Database& db, const TableDigest& t, RunId run) {
  std::string where;
  if (t.table == "kernels") {
    where = " WHERE rowid >= (" + std::to_string(run.value()) + " << 32) AND rowid < ((" +
            std::to_string(run.value()) + " + 1) << 32)";
  } else if (t.shared) {
    where = " WHERE rowid <= " + std::to_string(t.last_rowid);
  }
  const std::string from = " FROM \"" + t.table + "\"" + where;
  NIMBLE_ASSIGN_OR_RETURN(const int64_t first, db.QueryInt("SELECT coalesce(min(rowid), 0)" + from));
  NIMBLE_ASSIGN_OR_RETURN(const int64_t last, db.QueryInt("SELECT coalesce(max(rowid), -1)" + from));
  return std::pair{first, last};
}

// Each table's query, and its rows cut into at most `threads` rowid ranges of at least
// `rows_per_part` rowids (every rowid from first to last in exactly one), largest first.
Status PlanDigestParts(Database& db, RunId run, int threads, int64_t rows_per_part,
                       std::vector<TableDigest>& tables, std::vector<PlannedTable>& plans,
                       std::vector<DigestPart>& parts) {
  auto plan_table = [&](const std::string& table, bool shared) -> Status {
    TableDigest t;
    t.table = table;
    t.shared = shared;
    if (shared) {
      NIMBLE_ASSIGN_OR_RETURN(t.last_rowid, LastRowid(db, table));
    }
    PlannedTable plan;
    NIMBLE_ASSIGN_OR_RETURN(const int64_t without_rowid,
                            db.QueryInt("SELECT count(*) FROM pragma_table_list WHERE name = '" + table + "' AND wr"));
    plan.by_rowid = without_rowid == 0;
    if (!plan.by_rowid) {
      NIMBLE_ASSIGN_OR_RETURN(plan.sql, DigestSql(db, table, shared));
      parts.push_back(DigestPart{tables.size(), 0, 0, 0, 0});
    } else {
      // The part's range is the query's only rowid range, so that each part reads its rows alone.
      NIMBLE_ASSIGN_OR_RETURN(plan.sql, DigestSelect(db, table));
      plan.sql += " WHERE rowid >= ?3 AND rowid <= ?4";
      if (!shared && table != "kernels") plan.sql += " AND +runId = ?1";
      NIMBLE_ASSIGN_OR_RETURN(const auto bounds, RowidBounds(db, t, run));
      const auto [first, last] = bounds;
      if (last >= first) {
        const uint64_t span = static_cast<uint64_t>(last) - static_cast<uint64_t>(first) + 1;  // 0: all 2^64
        const uint64_t count = span == 0 ? static_cast<uint64_t>(threads)
                                         : std::clamp<uint64_t>(span / static_cast<uint64_t>(rows_per_part), 1,
                                                                static_cast<uint64_t>(threads));
        const uint64_t step = (span == 0 ? ~uint64_t{0} : span) / count;
        for (uint64_t i = 0; i < count; ++i) {
          const auto lo = static_cast<int64_t>(static_cast<uint64_t>(first) + step * i);
          const int64_t hi =
              i + 1 == count ? last : static_cast<int64_t>(static_cast<uint64_t>(first) + step * (i + 1) - 1);
          parts.push_back(DigestPart{tables.size(), lo, hi, 0, 0});
        }
      }
    }
    tables.push_back(std::move(t));
    plans.push_back(std::move(plan));
    return OkStatus();
  };
  NIMBLE_RETURN_IF_ERROR(ForEachDigestedTable(db, DigestScope::kAll, plan_table));
  // Largest first, so that the last part to finish is a small one; a table digested whole counts as large.
  auto size = [&](const DigestPart& p) {
    return plans[p.table].by_rowid ? static_cast<uint64_t>(p.last_rowid) - static_cast<uint64_t>(p.first_rowid)
                                   : ~uint64_t{0};
  };
  std::stable_sort(parts.begin(), parts.end(),
                   [&](const DigestPart& a, const DigestPart& b) { return size(a) > size(b); });
  return OkStatus();
}

// Digests `parts` on a connection of its own to `path`, taking the next part until none is left or a
// worker failed.
Status DigestParts(const std::string& path, RunId run, const std::vector<TableDigest>& tables,
                   const std::vector<PlannedTable>& plans, std::vector<DigestPart>& parts, std::atomic<size_t>& next,
                   std::atomic<bool>& failed) {
  auto digest = [&]() -> Status {
    NIMBLE_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, Database::Open(path, OpenMode::kReadOnly));
    for (size_t i = next++; i < parts.size() && !failed; i = next++) {
      DigestPart& part = parts[i];
      const PlannedTable& plan = plans[part.table];
      NIMBLE_ASSIGN_OR_RETURN(Statement q, db->Prepare(plan.sql));
      if (tables[part.table].shared) {
        q.BindInt(2, tables[part.table].last_rowid);
      } else {
        q.BindInt(1, run.value());
      }
      if (plan.by_rowid) {
        q.BindInt(3, part.first_rowid);
        q.BindInt(4, part.last_rowid);
      }
      NIMBLE_ASSIGN_OR_RETURN(bool has_row, q.Step());
      if (has_row) part.rows = q.ColumnInt(0), part.value = q.ColumnInt(1);
      q.Reset();
    }
    return OkStatus();
  };
  Status status = digest();
  if (!status.ok()) failed = true;
  return status;
}

}  // namespace

Status WriteDigests(Database& db, RunId run) {
  if (!db.TableExists("run_digests")) return OkStatus();
  NIMBLE_ASSIGN_OR_RETURN(Statement put, PrepareDigestInsert(db));
  return ForEachDigestedTable(db, DigestScope::kAll, [&](const std::string& table, bool shared) -> Status {
    int64_t last_rowid = 0;
    if (shared) {
      NIMBLE_ASSIGN_OR_RETURN(last_rowid, LastRowid(db, table));
    }
    NIMBLE_ASSIGN_OR_RETURN(const Digest d, Compute(db, table, shared, run, last_rowid));
    return StoreDigest(put, run, TableDigest{table, shared, d.rows, d.value, d.last_rowid});
  });
}

StatusOr<std::vector<TableDigest>> ComputeDigestsInParallel(Database& db, RunId run, int threads,
                                                            int64_t rows_per_part) {
  if (threads < 1 || rows_per_part < 1) {
    return InvalidArgument(db.path() + ": digests need a thread and a row per part");
  }
  if (sqlite3_get_autocommit(db.handle()) == 0) {
    return FailedPrecondition(db.path() + ": digests are read on other connections only outside a transaction");
  }
  std::vector<TableDigest> tables;
  if (!db.TableExists("run_digests")) return tables;
  std::vector<PlannedTable> plans;
  std::vector<DigestPart> parts;
  NIMBLE_RETURN_IF_ERROR(PlanDigestParts(db, run, threads, rows_per_part, tables, plans, parts));
  // The file SQLite opened (absolute), not the name messages give it: the readers must read this file.
  const char* file = sqlite3_db_filename(db.handle(), "main");
  if (file == nullptr || *file == '\0') {
    return FailedPrecondition(db.path() + ": an in-memory database has no file to read");
  }
  const std::string path = file;
  const int workers = static_cast<int>(std::min<size_t>(static_cast<size_t>(threads), parts.size()));
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::vector<Status> results(static_cast<size_t>(workers));
  try {
    std::vector<std::jthread> pool;
    for (int w = 0; w < workers; ++w) {
      pool.emplace_back([&, w] {
        results[static_cast<size_t>(w)] = DigestParts(path, run, tables, plans, parts, next, failed);
      });
    }
  } catch (const std::system_error& e) {  // the threads started so far are joined by now
    return Unavailable(db.path() + ": cannot start a thread to read digests: " + e.what());
  }
  for (const Status& r : results) NIMBLE_RETURN_IF_ERROR(r);
  for (const DigestPart& part : parts) {
    TableDigest& sum = tables[part.table];
    sum.rows += part.rows;
    // The digest is a wrapping sum of one hash per row: parts add up the same way.
    sum.value = static_cast<int64_t>(static_cast<uint64_t>(sum.value) + static_cast<uint64_t>(part.value));
  }
  return tables;
}

Status StoreDigests(Database& db, RunId run, const std::vector<TableDigest>& digests) {
  if (!db.TableExists("run_digests")) return OkStatus();
  NIMBLE_ASSIGN_OR_RETURN(Statement put, PrepareDigestInsert(db));
  for (const TableDigest& d : digests) NIMBLE_RETURN_IF_ERROR(StoreDigest(put, run, d));
  return OkStatus();
}

StatusOr<bool> HasDigests(Database& db, RunId run) {
  if (!db.TableExists("run_digests")) return false;
  NIMBLE_ASSIGN_OR_RETURN(Statement q, db.Prepare("SELECT count(*) FROM run_digests WHERE runId = ?"));
  q.BindInt(1, run.value());
  NIMBLE_ASSIGN_OR_RETURN(bool has_row, q.Step());
  const bool any = has_row && q.ColumnInt(0) > 0;
  q.Reset();
  return any;
}

Status VerifyDigests(Database& db, RunId run, DigestScope scope) {
  NIMBLE_ASSIGN_OR_RETURN(const bool sealed, HasDigests(db, run));
  if (!sealed) return OkStatus();
  NIMBLE_ASSIGN_OR_RETURN(Statement get, db.Prepare(
      "SELECT rowCount, digest, coalesce(lastRowid, 0) FROM run_digests WHERE runId = ? AND tableName = ?"));
  return ForEachDigestedTable(db, scope, [&](const std::string& table, bool shared) -> Status {
    get.BindInt(1, shared ? 0 : run.value());
    get.BindText(2, table);
    NIMBLE_ASSIGN_OR_RETURN(bool stored, get.Step());
    if (!stored) {
      return DataLoss(db.path() + ": the file is damaged or inconsistent: run " + std::to_string(run.value()) +
                      " has no digest of table " + table);
    }
    const Digest want{get.ColumnInt(0), get.ColumnInt(1), get.ColumnInt(2)};
    get.Reset();
    NIMBLE_ASSIGN_OR_RETURN(const Digest got, Compute(db, table, shared, run, want.last_rowid));
    if (got.rows == want.rows && got.value == want.value) return OkStatus();
    return DataLoss(db.path() + ": the file is damaged or inconsistent: table " + table +
                    (shared ? std::string() : " of run " + std::to_string(run.value())) +
                    " no longer matches the digest written with it (" + std::to_string(got.rows) + " rows, " +
                    std::to_string(want.rows) + " written): a value changed after it was recorded");
  });
}

Status DropDigests(Database& db, RunId run) {
  if (!db.TableExists("run_digests")) return OkStatus();
  NIMBLE_ASSIGN_OR_RETURN(Statement del, db.Prepare("DELETE FROM run_digests WHERE runId = ?"));
  del.BindInt(1, run.value());
  return del.Run();
}

}  // namespace nimble::store
