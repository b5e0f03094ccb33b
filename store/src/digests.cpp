#include "digests.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <thread>
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

// "SELECT count(*), nimble_digest(<every column>) FROM <table> WHERE <the run's rows>".
StatusOr<std::string> DigestSql(Database& db, const std::string& table, bool shared) {
  NIMBLE_ASSIGN_OR_RETURN(Statement info, db.Prepare("SELECT name FROM pragma_table_info(?1)"));
  info.BindText(1, table);
  std::string columns;
  while (true) {
    NIMBLE_ASSIGN_OR_RETURN(bool has_row, info.Step());
    if (!has_row) break;
    columns += (columns.empty() ? "\"" : ", \"") + info.ColumnText(0) + "\"";
  }
  if (columns.empty()) return NotFound(db.path() + ": no table " + table);
  // Shared tables only grow (strings and launch configurations of later runs are appended), so their
  // digest covers the rows up to the last one at writing: a later writer that dies half-way cannot make
  // the runs before it unreadable.
  // `+runId` keeps SQLite from finding the rows through an index and reading indexed columns from it:
  // the digest must see the table's values, which is where the readers read them (same rule there).
  std::string where = " WHERE +runId = ?1";
  if (shared) where = " WHERE rowid <= ?2";
  if (table == "kernels") where = " WHERE id >= (?1 << 32) AND id < ((?1 + 1) << 32)";
  return "SELECT count(*), nimble_digest(" + columns + ") FROM \"" + table + "\"" + where;
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

Status StoreDigest(Statement& put, RunId run, const std::string& table, bool shared, const Digest& d) {
  put.BindInt(1, shared ? 0 : run.value());
  put.BindText(2, table);
  put.BindInt(3, d.rows);
  put.BindInt(4, d.value);
  if (shared) {
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
  Digest digest{};
};

struct DigestedTable {
  std::string name;
  bool shared = false;
  int64_t last_rowid = 0;  // shared tables: the rows covered
  bool by_rowid = true;    // false for a WITHOUT ROWID table, digested whole
  std::string sql;         // the digest's query, over a rowid range (?3 to ?4) when by_rowid
};

// Digests `parts` on a connection of its own to `path`, taking the next part until none is left.
Status DigestParts(const std::string& path, RunId run, const std::vector<DigestedTable>& tables,
                   std::vector<DigestPart>& parts, std::atomic<size_t>& next) {
  NIMBLE_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, Database::Open(path, OpenMode::kReadOnly));
  for (size_t i = next++; i < parts.size(); i = next++) {
    DigestPart& part = parts[i];
    const DigestedTable& t = tables[part.table];
    NIMBLE_ASSIGN_OR_RETURN(Statement q, db->Prepare(t.sql));
    if (t.shared) {
      q.BindInt(2, t.last_rowid);
    } else {
      q.BindInt(1, run.value());
    }
    if (t.by_rowid) {
      q.BindInt(3, part.first_rowid);
      q.BindInt(4, part.last_rowid);
    }
    NIMBLE_ASSIGN_OR_RETURN(bool has_row, q.Step());
    if (has_row) part.digest = {q.ColumnInt(0), q.ColumnInt(1), t.last_rowid};
    q.Reset();
  }
  return OkStatus();
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
    return StoreDigest(put, run, table, shared, d);
  });
}

Status WriteDigestsInParallel(Database& db, RunId run, int threads, int64_t rows_per_part) {
  if (!db.TableExists("run_digests")) return OkStatus();
  if (threads < 1 || rows_per_part < 1) return InvalidArgument(db.path() + ": digests need a thread and a row per part");
  std::vector<DigestedTable> tables;
  std::vector<DigestPart> parts;
  NIMBLE_RETURN_IF_ERROR(ForEachDigestedTable(db, DigestScope::kAll, [&](const std::string& table, bool shared) -> Status {
    DigestedTable t;
    t.name = table;
    t.shared = shared;
    if (shared) {
      NIMBLE_ASSIGN_OR_RETURN(t.last_rowid, LastRowid(db, table));
    }
    NIMBLE_ASSIGN_OR_RETURN(t.sql, DigestSql(db, table, shared));
    t.by_rowid = db.Prepare("SELECT rowid FROM \"" + table + "\" LIMIT 0").ok();
    if (!t.by_rowid) {
      parts.push_back(DigestPart{tables.size(), 0, 0, {}});
      tables.push_back(std::move(t));
      return OkStatus();
    }
    t.sql += " AND rowid >= ?3 AND rowid <= ?4";
    NIMBLE_ASSIGN_OR_RETURN(const int64_t first, db.QueryInt("SELECT coalesce(min(rowid), 0) FROM \"" + table + "\""));
    NIMBLE_ASSIGN_OR_RETURN(const int64_t last, db.QueryInt("SELECT coalesce(max(rowid), 0) FROM \"" + table + "\""));
    // Equal rowid ranges; the rows of one run are contiguous in a new file, so the ranges share its rows
    // about evenly. Every rowid from `first` to `last` is in exactly one range.
    const int64_t span = last - first + 1;
    const int64_t count = std::clamp<int64_t>(span / rows_per_part, 1, threads);
    for (int64_t i = 0; i < count; ++i) {
      const int64_t lo = first + span / count * i;
      const int64_t hi = i + 1 == count ? last : first + span / count * (i + 1) - 1;
      parts.push_back(DigestPart{tables.size(), lo, hi, {}});
    }
    tables.push_back(std::move(t));
    return OkStatus();
  }));
  // Largest first, so that the last part to finish is a small one.
  std::stable_sort(parts.begin(), parts.end(), [](const DigestPart& a, const DigestPart& b) {
    return a.last_rowid - a.first_rowid > b.last_rowid - b.first_rowid;
  });
  const int workers = static_cast<int>(std::min<size_t>(static_cast<size_t>(threads), parts.size()));
  std::atomic<size_t> next{0};
  std::vector<Status> results(static_cast<size_t>(workers));
  {
    std::vector<std::jthread> pool;
    for (int w = 0; w < workers; ++w) {
      pool.emplace_back([&, w] { results[static_cast<size_t>(w)] = DigestParts(db.path(), run, tables, parts, next); });
    }
  }
  for (const Status& r : results) NIMBLE_RETURN_IF_ERROR(r);
  std::vector<Digest> sums(tables.size());
  for (const DigestPart& part : parts) {
    Digest& sum = sums[part.table];
    sum.rows += part.digest.rows;
    // The digest is a wrapping sum of one hash per row: parts add up the same way.
    sum.value = static_cast<int64_t>(static_cast<uint64_t>(sum.value) + static_cast<uint64_t>(part.digest.value));
  }
  NIMBLE_ASSIGN_OR_RETURN(Statement put, PrepareDigestInsert(db));
  for (size_t i = 0; i < tables.size(); ++i) {
    sums[i].last_rowid = tables[i].last_rowid;
    NIMBLE_RETURN_IF_ERROR(StoreDigest(put, run, tables[i].name, tables[i].shared, sums[i]));
  }
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
