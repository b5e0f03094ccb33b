// Content digests: the one check that sees a changed value inside a record, which no structural check
// can (a flipped bit in a kernel's end that stays inside its time block). When a run is committed,
// every table the readers load gets a row in run_digests for that run (row count and an order-free
// 64-bit digest of every column of every row); the tables shared by all runs (strings, launch
// configurations) get one under run 0. Each reader verifies the digests of the tables it reads before
// trusting their rows.
// Runs written before schema 6 have none until `nimble-prof upgrade` seals them. One thread per Database;
// ComputeDigestsInParallel starts threads with connections of their own.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nimble/core/ids.h"
#include "sqlite_db.h"

namespace nimble::store {

// Registers the nimble_digest(...) aggregate on a connection: the wrapping sum of one 64-bit hash per
// row, each over its values' types and bytes. Called by Database::Open for every connection.
int RegisterDigestFunction(sqlite3* db);

// Writes (replaces) the digests of `run`'s tables and of the shared tables. Inside the caller's
// transaction when there is one.
Status WriteDigests(Database& db, RunId run);

// One table's digest as WriteDigests stores it.
struct TableDigest {
  std::string table;
  bool shared = false;     // a table of every run's (run 0's digest)
  int64_t rows = 0;
  int64_t value = 0;
  int64_t last_rowid = 0;  // shared tables: the rows covered
};

// The digests WriteDigests would write, read on up to `threads` read-only connections of their own to
// the file SQLite has open, in threads of their own, each table cut into rowid ranges of at least
// `rows_per_part` rowids (the digest is a wrapping sum over rows, so ranges add up). Only where the
// rows are committed and nothing else writes the file: FailedPrecondition inside a transaction. For a
// new database's partial file; the writer stores the result with StoreDigests. The default part size
// is a judgement, not a measurement: small enough that a table of an import's size spreads over every
// connection, large enough that a part reads many rows per statement prepared.
StatusOr<std::vector<TableDigest>> ComputeDigestsInParallel(Database& db, RunId run, int threads,
                                                            int64_t rows_per_part = int64_t{1} << 16);
Status StoreDigests(Database& db, RunId run, const std::vector<TableDigest>& digests);

// The tables a reader is about to read: the trace (activity, devices, the run row, the shared
// tables), the op graph, or the kernel attribution (with the ops and time blocks it is checked against).
enum class DigestScope { kTrace, kGraph, kAttribution, kAll };

// DataLoss naming the table when a stored digest of a table in `scope` no longer matches; OK when the
// run has none.
Status VerifyDigests(Database& db, RunId run, DigestScope scope);

// Removes `run`'s digests: a run reopened for writing is unsealed until its writer commits, so that a
// writer that dies half-way leaves a run that reads as unsealed, not as damaged.
Status DropDigests(Database& db, RunId run);

// True when `run` has digests.
StatusOr<bool> HasDigests(Database& db, RunId run);

}  // namespace nimble::store
