// The digests a new database's writer reads on several connections at once equal those read on one,
// for every table (with and without rowids, shared and per run) however the rows are cut into parts,
// and are only read that way outside a transaction.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "digests.h"
#include "nimble/store/run_reader.h"
#include "nimble/store/run_writer.h"
#include "sqlite_db.h"
#include "store_test_util.h"

namespace nimble::store {
namespace {

using testing::TempDirTest;

using DigestRow = std::tuple<int64_t, std::string, int64_t, int64_t, int64_t>;

std::vector<DigestRow> ReadDigests(Database& db) {
  std::vector<DigestRow> rows;
  auto q = db.Prepare(
      "SELECT runId, tableName, rowCount, digest, coalesce(lastRowid, 0) FROM run_digests ORDER BY runId, tableName");
  EXPECT_TRUE(q.ok()) << q.status().ToString();
  if (!q.ok()) return rows;
  while (true) {
    auto has_row = q->Step();
    EXPECT_TRUE(has_row.ok());
    if (!has_row.ok() || !*has_row) break;
    rows.emplace_back(q->ColumnInt(0), q->ColumnText(1), q->ColumnInt(2), q->ColumnInt(3), q->ColumnInt(4));
  }
  return rows;
}

class DigestsTest : public TempDirTest {};

TEST_F(DigestsTest, ParallelDigestsEqualSequentialOnesForAnyCutOfTheRows) {
  std::mt19937_64 rng(20261127);
  const std::string path = PathOf("run.db");
  // Run 1 makes the file (its digests read in parallel), run 2 is added to it (read on one connection):
  // each run's rows are then a part of every table, which the parallel queries must keep apart.
  std::vector<DigestRow> committed;
  for (int run = 1; run <= 2; ++run) {
    auto writer = RunWriter::Create(path, testing::SampleRun(RunMode::kAotMulti));
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    const testing::RandomResults results = testing::MakeRandomResults(rng, 12, 300);
    ASSERT_TRUE((*writer)->AppendTrace(testing::RandomTrace(rng, 300)).ok());
    ASSERT_TRUE((*writer)->WriteGraph(results.graph, results.attribution).ok());
    ASSERT_TRUE((*writer)->Commit().ok());
    if (run == 1) {
      auto first = Database::Open(path, OpenMode::kReadOnly);
      ASSERT_TRUE(first.ok());
      committed = ReadDigests(**first);
    }
  }
  auto db = Database::Open(path, OpenMode::kReadWrite);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  std::vector<DigestRow> sequential;
  for (const DigestRow& row : ReadDigests(**db)) {
    if (std::get<0>(row) == 1) sequential.push_back(row);
  }
  ASSERT_TRUE(WriteDigests(**db, RunId(1)).ok());
  std::vector<DigestRow> rewritten;
  for (const DigestRow& row : ReadDigests(**db)) {
    if (std::get<0>(row) == 1) rewritten.push_back(row);
  }
  EXPECT_EQ(rewritten, sequential) << "the writer's commit stored the digests one connection reads";
  std::vector<DigestRow> committed_run;
  for (const DigestRow& row : committed) {
    if (std::get<0>(row) == 1) committed_run.push_back(row);
  }
  EXPECT_EQ(committed_run, sequential);

  const std::vector<DigestRow> all = ReadDigests(**db);
  int kernels = 0, time_blocks = 0, strings = 0;
  for (const auto& [run, table, rows, digest, last] : all) {
    if (table == "kernels" && rows >= 300 && digest != 0) ++kernels;
    if (table == "kernel_time_blocks" && rows > 0) ++time_blocks;  // WITHOUT ROWID: digested whole
    if (table == "StringIds" && run == 0 && rows > 0 && last > 0) ++strings;
  }
  EXPECT_EQ(kernels, 2);
  EXPECT_EQ(time_blocks, 2);
  EXPECT_EQ(strings, 1);
  // Inside a transaction the digests are not read elsewhere: another connection would not see its rows.
  ASSERT_TRUE((*db)->Exec("BEGIN").ok());
  const auto in_transaction = ComputeDigestsInParallel(**db, RunId(1), 2);
  EXPECT_EQ(in_transaction.status().code(), StatusCode::kFailedPrecondition);
  ASSERT_TRUE((*db)->Exec("ROLLBACK").ok());
  // The readers open the file SQLite has open, not the name messages give it.
  (*db)->SetDisplayPath(PathOf("no such file.db"));
  for (int threads : {1, 2, 3, 8}) {
    for (int64_t rows_per_part : {1, 2, 7, 64, 100000}) {
      for (int run = 1; run <= 2; ++run) {
        auto digests = ComputeDigestsInParallel(**db, RunId(run), threads, rows_per_part);
        ASSERT_TRUE(digests.ok()) << digests.status().ToString();
        ASSERT_TRUE(StoreDigests(**db, RunId(run), *digests).ok());
      }
      EXPECT_EQ(ReadDigests(**db), all) << threads << " threads, " << rows_per_part << " rows per part";
    }
  }
  EXPECT_FALSE(ComputeDigestsInParallel(**db, RunId(1), 0).ok());
  // A value changed after the digests were written is still found by the readers.
  ASSERT_TRUE((*db)->Exec("UPDATE kernels SET end = end + 1 WHERE id = (SELECT max(id) FROM kernels)").ok());
  ASSERT_TRUE((*db)->Close().ok());
  auto reader = RunReader::Open(path);
  ASSERT_TRUE(reader.ok());
  EXPECT_TRUE((*reader)->LoadTrace(RunId(1)).ok());
  const auto loaded = (*reader)->LoadTrace(RunId(2));  // the kernel with the largest id is run 2's
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find("no longer matches the digest"), std::string::npos)
      << loaded.status().ToString();
}

}  // namespace
}  // namespace nimble::store
