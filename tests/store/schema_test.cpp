// Schema versions and migrations: each version has exactly its tables, enum tables mirror core's
// enums, and a version-1 file holding a run upgrades and reads back.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <span>

#include "nimble/store/run_reader.h"
#include "nimble/store/run_writer.h"
#include "nimble/store/schema.h"
#include "sqlite_db.h"
#include "store_test_util.h"

namespace nimble::store {
namespace {

using testing::TempDirTest;

class StoreSchemaTest : public TempDirTest {
 protected:
  std::unique_ptr<Database> OpenRaw(const std::string& path) {
    auto db = Database::Open(path, OpenMode::kReadWrite);
    EXPECT_TRUE(db.ok()) << db.status().ToString();
    return db.ok() ? std::move(db).value() : nullptr;
  }
  int64_t Query(Database& db, const std::string& sql) {
    auto v = db.QueryInt(sql);
    EXPECT_TRUE(v.ok()) << v.status().ToString();
    return v.ok() ? *v : -1;
  }
  // The kernelIndex column (third, after id and runId) of every row `sql` returns for run, from, to bound to ?1..?3.
  std::vector<int64_t> KernelIndexes(Database& db, const std::string& sql, int64_t run, int64_t from, int64_t to) {
    auto stmt = db.Prepare(sql);
    EXPECT_TRUE(stmt.ok()) << stmt.status().ToString();
    std::vector<int64_t> indexes;
    if (!stmt.ok()) return indexes;
    stmt->BindInt(1, run);
    stmt->BindInt(2, from);
    stmt->BindInt(3, to);
    while (true) {
      auto has_row = stmt->Step();
      EXPECT_TRUE(has_row.ok());
      if (!has_row.ok() || !*has_row) break;
      indexes.push_back(stmt->ColumnInt(2));
    }
    return indexes;
  }
  // The details of EXPLAIN QUERY PLAN for `sql`, one line per step.
  std::string Plan(Database& db, const std::string& sql) {
    auto plan = db.Prepare("EXPLAIN QUERY PLAN " + sql);
    EXPECT_TRUE(plan.ok()) << plan.status().ToString();
    std::string details;
    while (plan.ok()) {
      auto has_row = plan->Step();
      if (!has_row.ok() || !*has_row) break;
      details += plan->ColumnText(3) + "\n";
    }
    return details;
  }
};

const char* const kVersion1Tables[] = {
    "StringIds", "runs", "stats", "ENUM_CUDA_MEMCPY_OPER", "ENUM_CUDA_MEM_KIND", "ENUM_CUPTI_SYNC_TYPE",
    "ENUM_NIMBLE_API_KIND", "TARGET_INFO_GPU", "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
    "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "CUPTI_ACTIVITY_KIND_RUNTIME",
    "NVTX_EVENTS", "CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION", "CUPTI_ACTIVITY_KIND_OVERHEAD"};
const char* const kVersion2Tables[] = {
    "ENUM_NIMBLE_EDGE_KIND", "ops", "op_edges", "op_kernels", "stream_assignment", "stream_assignment_ops",
    "stream_assignment_syncs", "metrics", "speedups"};
const char* const kVersion3Tables[] = {"kernel_time_blocks"};
// Version 4 moves the kernel rows to `kernels` and leaves CUPTI_ACTIVITY_KIND_KERNEL as a view.
const char* const kVersion4Tables[] = {"kernel_launch_configs", "kernels"};
// Version 5 adds CUDA graph launches recorded at graph level.
const char* const kVersion5Tables[] = {"CUPTI_ACTIVITY_KIND_GRAPH_TRACE"};
const char* const kVersion6Tables[] = {"run_digests"};

// Every row of `sql`, as text, one line per row.
std::string Rows(Database& db, const std::string& sql) {
  std::string out;
  auto q = db.Prepare(sql);
  if (!q.ok()) return "error: " + q.status().ToString();
  while (true) {
    auto has_row = q->Step();
    if (!has_row.ok() || !*has_row) break;
    for (int c = 0; c < q->ColumnCount(); ++c) out += (q->ColumnIsNull(c) ? "NULL" : q->ColumnText(c)) + "|";
    out += "\n";
  }
  return out;
}

// The column names of a table or view, in order.
std::vector<std::string> Columns(Database& db, const std::string& table) {
  std::vector<std::string> names;
  auto q = db.Prepare("SELECT name FROM pragma_table_info(?) ORDER BY cid");
  if (!q.ok()) return names;
  q->BindText(1, table);
  while (true) {
    auto has_row = q->Step();
    if (!has_row.ok() || !*has_row) break;
    names.push_back(q->ColumnText(0));
  }
  return names;
}

TEST_F(StoreSchemaTest, EachVersionHasExactlyItsTables) {
  for (int version = 1; version <= kSchemaVersion; ++version) {
    const std::string path = PathOf("v" + std::to_string(version) + ".db");
    ASSERT_TRUE(CreateDatabaseAtVersion(path, version).ok());
    auto db = OpenRaw(path);
    ASSERT_NE(db, nullptr);
    EXPECT_EQ(Query(*db, "PRAGMA user_version"), version);
    EXPECT_EQ(Query(*db, "PRAGMA application_id"), 0x4E4D424C);
    for (const char* table : kVersion1Tables) {
      const bool view = version >= 4 && std::string(table) == "CUPTI_ACTIVITY_KIND_KERNEL";
      EXPECT_EQ(db->TableExists(table), !view) << table;
    }
    for (const char* table : kVersion2Tables) EXPECT_EQ(db->TableExists(table), version >= 2) << table;
    for (const char* table : kVersion3Tables) EXPECT_EQ(db->TableExists(table), version >= 3) << table;
    for (const char* table : kVersion4Tables) EXPECT_EQ(db->TableExists(table), version >= 4) << table;
    for (const char* table : kVersion5Tables) EXPECT_EQ(db->TableExists(table), version >= 5) << table;
    for (const char* table : kVersion6Tables) EXPECT_EQ(db->TableExists(table), version >= 6) << table;
    const int64_t tables = Query(*db, "SELECT count(*) FROM sqlite_schema WHERE type = 'table'");
    EXPECT_EQ(tables, std::ssize(kVersion1Tables) + (version >= 2 ? std::ssize(kVersion2Tables) : 0) +
                          (version >= 3 ? std::ssize(kVersion3Tables) : 0) +
                          (version >= 4 ? std::ssize(kVersion4Tables) - 1 : 0) +
                          (version >= 5 ? std::ssize(kVersion5Tables) : 0) +
                          (version >= 6 ? std::ssize(kVersion6Tables) : 0));
    EXPECT_EQ(Query(*db, "SELECT count(*) FROM sqlite_schema WHERE type = 'view'"), version >= 4 ? 1 : 0);
    // Version 3 finds kernels by time through kernel_time_blocks instead of this index.
    EXPECT_EQ(Query(*db, "SELECT count(*) FROM sqlite_schema WHERE name = 'kernel_runId_start'"), version < 3 ? 1 : 0);
  }
}

TEST_F(StoreSchemaTest, EnumTablesMirrorCoreEnums) {
  const std::string path = PathOf("enums.db");
  ASSERT_TRUE(CreateDatabaseAtVersion(path, kSchemaVersion).ok());
  auto db = OpenRaw(path);
  ASSERT_NE(db, nullptr);
  struct Expected {
    const char* table;
    int64_t last_id;
  };
  for (const Expected& e : {Expected{"ENUM_CUDA_MEMCPY_OPER", static_cast<int64_t>(CopyKind::kPtoP)},
                            Expected{"ENUM_CUDA_MEM_KIND", static_cast<int64_t>(MemoryKind::kManagedStatic)},
                            Expected{"ENUM_CUPTI_SYNC_TYPE", static_cast<int64_t>(SyncKind::kContextSynchronize)},
                            Expected{"ENUM_NIMBLE_API_KIND", static_cast<int64_t>(ApiKind::kDriver)},
                            Expected{"ENUM_NIMBLE_EDGE_KIND", static_cast<int64_t>(EdgeKind::kOrder)}}) {
    const std::string table = e.table;
    EXPECT_EQ(Query(*db, "SELECT count(*) FROM " + table), e.last_id + 1) << table;
    EXPECT_EQ(Query(*db, "SELECT min(id) FROM " + table), 0) << table;
    EXPECT_EQ(Query(*db, "SELECT max(id) FROM " + table), e.last_id) << table;
    EXPECT_EQ(Query(*db, "SELECT count(DISTINCT name) FROM " + table + " WHERE name <> '' AND label <> ''"),
              e.last_id + 1) << table;
  }
  EXPECT_EQ(Query(*db, "SELECT id FROM ENUM_CUDA_MEMCPY_OPER WHERE name = 'CUDA_MEMCPY_KIND_DTOH'"),
            static_cast<int64_t>(CopyKind::kDtoH));
}

// Writes one run into a version-1 file the way a version-1 writer would have: raw rows.
void WriteVersion1Run(Database& db) {
  ASSERT_TRUE(db.Exec(R"sql(
    INSERT INTO runs VALUES (1, 'm.pt', '1x3', 'GPU', 'eager', 'nimble-prof m.pt', 3, 1, 1700000000);
    INSERT INTO StringIds VALUES (10, 'gemm'), (11, 'relu');
    INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
      (1, 0, 100, 200, 0, 1, 7, 55, 10, 10, 4, 1, 1, 128, 1, 1, 32, 0, 0, 0, 0),
      (1, 1, 150, 160, 0, 1, 8, 56, 11, NULL, 2, 2, 1, 64, 1, 1, 16, 1024, 0, 0, 0);
    INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (1, 10, 20, 0, 1, 7, 54, 4096, 1, 2, 3, 0);
    INSERT INTO stats VALUES (1, 'dropped_records', 2, 'warning', 'buffer full');
  )sql").ok());
}

TEST_F(StoreSchemaTest, Version1FileWithARunReadsBackUnchangedAndUpgradesOnRequest) {
  const std::string path = PathOf("old.db");
  ASSERT_TRUE(CreateDatabaseAtVersion(path, 1).ok());
  {
    auto db = OpenRaw(path);
    ASSERT_NE(db, nullptr);
    WriteVersion1Run(*db);
  }
  // Reading goes through a private upgraded copy: the file keeps its schema and gains no companion.
  {
    auto reader = RunReader::Open(path);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    EXPECT_EQ((*reader)->schema_version(), kSchemaVersion);
    EXPECT_EQ((*reader)->path(), path);
    auto trace = (*reader)->LoadTrace(RunId(1));
    ASSERT_TRUE(trace.ok()) << trace.status().ToString();
    EXPECT_EQ(trace->kernels.size(), 2u);
  }
  {
    auto db = OpenRaw(path);
    ASSERT_NE(db, nullptr);
    EXPECT_EQ(Query(*db, "PRAGMA user_version"), 1);
  }
  ASSERT_TRUE(UpgradeDatabase(path).ok());
  auto reader = RunReader::Open(path);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*reader)->schema_version(), kSchemaVersion);
  auto run = (*reader)->Run(RunId(1));
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->model, "m.pt");
  EXPECT_EQ(run->iterations, 3);
  auto trace = (*reader)->LoadTrace(RunId(1));
  ASSERT_TRUE(trace.ok()) << trace.status().ToString();
  {
    // Version 3 built the time block of the run's two kernels (starts 100 and 150, ends 200 and 160).
    auto db = OpenRaw(path);
    ASSERT_NE(db, nullptr);
    EXPECT_EQ(Query(*db, "SELECT count(*) FROM kernel_time_blocks WHERE runId = 1 AND firstKernelIndex = 0 AND "
                         "lastKernelIndex = 1 AND minStart = 100 AND maxEnd = 200"), 1);
    EXPECT_EQ(Query(*db, "SELECT count(*) FROM kernel_time_blocks"), 1);
    // and keyed the kernels by (runId << 32) + kernelIndex.
    EXPECT_EQ(Query(*db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE id = (runId << 32) + kernelIndex"), 2);
  }
  ASSERT_EQ(trace->kernels.size(), 2u);
  EXPECT_EQ(trace->strings.Get(trace->kernels[0].name), "gemm");
  EXPECT_EQ(trace->strings.Get(trace->kernels[1].name), "relu");
  EXPECT_FALSE(trace->kernels[1].short_name.valid());
  EXPECT_EQ(trace->kernels[1].static_shared_bytes, 1024);
  EXPECT_EQ(trace->kernels[0].grid, (Dim3{4, 1, 1}));
  ASSERT_EQ(trace->memcpys.size(), 1u);
  EXPECT_EQ(trace->memcpys[0].copy_kind, CopyKind::kHtoD);
  EXPECT_EQ(trace->memcpys[0].dst_kind, MemoryKind::kDevice);
  EXPECT_EQ((*reader)->LoadStats(RunId(1))->front().value, 2);
  // Version-2 tables exist now, empty for the old run, and can be filled.
  EXPECT_TRUE((*reader)->LoadGraph(RunId(1))->ops.empty());
  reader->reset();
  auto writer = RunWriter::OpenRun(path, RunId(1));
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  OpGraph graph;
  graph.ops = {{OpId(0), "a", "aten::mm", "[1]", 110}, {OpId(1), "b", "aten::relu", "[1]", 10}};
  graph.edges = {{OpId(0), OpId(1)}};
  const std::vector<KernelAttribution> attribution = {{OpId(0), KernelIndex(0)}, {OpId(1), KernelIndex(1)}};
  ASSERT_TRUE((*writer)->WriteGraph(graph, attribution).ok());
  writer->reset();
  auto again = RunReader::Open(path);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)->LoadGraph(RunId(1))->ops, graph.ops);
  EXPECT_EQ(*(*again)->LoadAttribution(RunId(1)), attribution);
}

TEST_F(StoreSchemaTest, UpgradeDatabaseKeepsRowsAndIsIdempotent) {
  const std::string path = PathOf("old.db");
  ASSERT_TRUE(CreateDatabaseAtVersion(path, 1).ok());
  {
    auto db = OpenRaw(path);
    ASSERT_NE(db, nullptr);
    WriteVersion1Run(*db);
  }
  ASSERT_TRUE(UpgradeDatabase(path).ok());
  const std::string upgraded = testing::ReadFileBytes(path);
  ASSERT_TRUE(UpgradeDatabase(path).ok());
  EXPECT_EQ(testing::ReadFileBytes(path), upgraded) << "upgrading a current file changed it";
  auto db = OpenRaw(path);
  ASSERT_NE(db, nullptr);
  EXPECT_EQ(Query(*db, "PRAGMA user_version"), kSchemaVersion);
  EXPECT_EQ(Query(*db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), 2);
  EXPECT_EQ(Query(*db, "SELECT count(*) FROM ENUM_NIMBLE_EDGE_KIND"), 2);
  auto check = db->Prepare("PRAGMA integrity_check");
  ASSERT_TRUE(check.ok());
  ASSERT_TRUE(*check->Step());
  EXPECT_EQ(check->ColumnText(0), "ok");
}

TEST_F(StoreSchemaTest, WriterAppendsARunToAVersion1File) {
  const std::string path = PathOf("old.db");
  ASSERT_TRUE(CreateDatabaseAtVersion(path, 1).ok());
  StringTable strings;
  std::vector<KernelRecord> kernels = {testing::MakeKernel(strings, 0), testing::MakeKernel(strings, 1)};
  auto writer = RunWriter::Create(path, testing::SampleRun(RunMode::kEager));
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  ASSERT_TRUE((*writer)->AppendKernels(kernels, strings).ok());
  ASSERT_TRUE((*writer)->Commit().ok());
  writer->reset();
  auto reader = RunReader::Open(path);
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ((*reader)->LoadTrace(RunId(1))->kernels.size(), 2u);
}

// Kernels nearly in time order, as CUPTI delivers them, with stragglers that start far earlier than
// their neighbours and long kernels that end far later; written in batches that start and end inside
// blocks, into two runs of one file.
TEST_F(StoreSchemaTest, TimeWindowThroughBlocksFindsExactlyTheOverlappingKernels) {
  const std::string path = PathOf("run.db");
  StringTable strings;
  constexpr int64_t kKernels = 5000;
  for (int run = 1; run <= 2; ++run) {
    std::vector<KernelRecord> kernels;
    for (int64_t i = 0; i < kKernels; ++i) {
      KernelRecord k = testing::MakeKernel(strings, i);
      if (i % 97 == 0) k.start_ns -= 300'000;         // delivered 300 kernels late
      if (i % 500 == 1) k.end_ns = k.start_ns + 2'000'000;  // runs across 2000 later kernels
      if (run == 2) k.start_ns += 123, k.end_ns += 123;
      kernels.push_back(k);
    }
    auto writer = RunWriter::Create(path, testing::SampleRun(RunMode::kEager), {.batch_records = 700});
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    ASSERT_TRUE((*writer)->AppendKernels(std::span(kernels).first(2500), strings).ok());
    ASSERT_TRUE((*writer)->AppendKernels(std::span(kernels).subspan(2500), strings).ok());
    ASSERT_TRUE((*writer)->Commit().ok());
  }
  auto db = OpenRaw(path);
  ASSERT_NE(db, nullptr);
  // One row per 1024 kernel indexes and run, each the exact bounds of its kernels.
  EXPECT_EQ(Query(*db, "SELECT count(*) FROM kernel_time_blocks"), 2 * ((kKernels + kKernelsPerTimeBlock - 1) / kKernelsPerTimeBlock));
  EXPECT_EQ(Query(*db, "SELECT count(*) FROM kernel_time_blocks b JOIN (SELECT runId, kernelIndex / 1024 * 1024 AS f, "
                       "max(kernelIndex) AS l, min(start) AS s, max(end) AS e FROM CUPTI_ACTIVITY_KIND_KERNEL "
                       "GROUP BY runId, kernelIndex / 1024) g ON g.runId = b.runId AND g.f = b.firstKernelIndex "
                       "AND g.l = b.lastKernelIndex AND g.s = b.minStart AND g.e = b.maxEnd"),
            Query(*db, "SELECT count(*) FROM kernel_time_blocks"));
  const std::string scan = "SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE runId = ?1 AND start <= ?3 AND end >= ?2 "
                           "ORDER BY kernelIndex";
  std::mt19937_64 rng(11);
  size_t found = 0;
  for (int w = 0; w < 60; ++w) {
    const int64_t from = 600'000 + static_cast<int64_t>(rng() % (kKernels * 1000 + 800'000));
    const int64_t to = from + static_cast<int64_t>(rng() % (w % 3 == 0 ? 2'000'000 : 20'000));
    for (int64_t run = 1; run <= 2; ++run) {
      const std::vector<int64_t> expected = KernelIndexes(*db, scan, run, from, to);
      EXPECT_EQ(KernelIndexes(*db, kKernelsInTimeWindowSql, run, from, to), expected)
          << "run " << run << ", window " << from << " to " << to;
      found += expected.size();
    }
  }
  EXPECT_GT(found, 1000u);  // the windows do hold kernels
}

// The writer lets SQLite number the kernels of the newest run; kernels added to an older run, below
// a newer run's ids, must get their own ids instead of the newer run's next ones.
TEST_F(StoreSchemaTest, KernelsAddedToAnOlderRunKeepTheirOwnKeys) {
  const std::string path = PathOf("run.db");
  StringTable strings;
  auto kernels = [&](int64_t first, int64_t n) {
    std::vector<KernelRecord> out;
    for (int64_t i = first; i < first + n; ++i) out.push_back(testing::MakeKernel(strings, i));
    return out;
  };
  for (int run = 1; run <= 2; ++run) {
    auto writer = RunWriter::Create(path, testing::SampleRun(RunMode::kEager), {.batch_records = 300});
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    ASSERT_TRUE((*writer)->AppendKernels(kernels(0, 1000), strings).ok());
    ASSERT_TRUE((*writer)->Commit().ok());
  }
  {
    auto writer = RunWriter::OpenRun(path, RunId(1), {.batch_records = 300});
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    ASSERT_TRUE((*writer)->AppendKernels(kernels(1000, 500), strings).ok());
    ASSERT_TRUE((*writer)->Commit().ok());
  }
  {
    auto db = OpenRaw(path);
    ASSERT_NE(db, nullptr);
    EXPECT_EQ(Query(*db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), 2500);
    EXPECT_EQ(Query(*db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE id = (runId << 32) + kernelIndex"), 2500);
    EXPECT_EQ(Query(*db, "SELECT count(DISTINCT kernelIndex) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE runId = 1"), 1500);
    EXPECT_EQ(Query(*db, "SELECT max(kernelIndex) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE runId = 2"), 999);
  }
  auto reader = RunReader::Open(path);
  ASSERT_TRUE(reader.ok());
  auto one = (*reader)->LoadTrace(RunId(1));
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  ASSERT_EQ(one->kernels.size(), 1500u);
  EXPECT_EQ(one->kernels[1200].start_ns, testing::MakeKernel(strings, 1200).start_ns);  // in write order
  EXPECT_EQ((*reader)->LoadTrace(RunId(2))->kernels.size(), 1000u);
}

TEST_F(StoreSchemaTest, CommittedFileHasTheQueryIndexesAndUsesThem) {
  const std::string path = PathOf("run.db");
  auto writer = RunWriter::Create(path, testing::SampleRun(RunMode::kEager));
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->Commit().ok());
  writer->reset();
  auto db = OpenRaw(path);
  ASSERT_NE(db, nullptr);
  for (const char* index : {"memcpy_runId_start", "memcpy_runId_correlationId",
                            "runtime_runId_correlationId", "nvtx_runId_start", "op_kernels_runId_kernelIndex"}) {
    EXPECT_EQ(Query(*db, std::string("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = '") +
                             index + "'"), 1) << index;
  }
  // Left out on purpose, for write speed (docs/schema.md): joins go through the runtime table's index,
  // time windows through kernel_time_blocks.
  for (const char* index : {"kernel_runId_correlationId", "kernel_runId_start"}) {
    EXPECT_EQ(Query(*db, std::string("SELECT count(*) FROM sqlite_schema WHERE name = '") + index + "'"), 0) << index;
  }

  // A time window: the run's block rows by key, then each overlapping block's kernels by rowid; no scan.
  const std::string window = Plan(*db, kKernelsInTimeWindowSql);
  EXPECT_NE(window.find("SEARCH b USING PRIMARY KEY (runId=?)"), std::string::npos) << window;
  EXPECT_NE(window.find("SEARCH k USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)"), std::string::npos) << window;
  EXPECT_EQ(window.find("SCAN"), std::string::npos) << window;
  // The timeline reader's chunk and single-kernel reads: a range of the primary key, no sort.
  const std::string chunk = Plan(*db, "SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE id >= (1 << 32) + 100 "
                                      "AND id < (1 << 32) + 200 ORDER BY id");
  EXPECT_NE(chunk.find("USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)"), std::string::npos) << chunk;
  EXPECT_EQ(chunk.find("TEMP B-TREE"), std::string::npos) << chunk;
  const std::string one = Plan(*db, "SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE id = (1 << 32) + 7");
  EXPECT_NE(one.find("USING INTEGER PRIMARY KEY (rowid=?)"), std::string::npos) << one;
  // A run's kernels with the API calls that launched them: one index look-up per kernel.
  const std::string join = Plan(*db, "SELECT k.kernelIndex, r.nameId FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                                     "JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.runId = k.runId AND "
                                     "r.correlationId = k.correlationId WHERE k.id >= (1 << 32) AND "
                                     "k.id < (2 << 32) ORDER BY k.id");
  EXPECT_NE(join.find("SEARCH r USING INDEX runtime_runId_correlationId"), std::string::npos) << join;
  EXPECT_EQ(join.find("SCAN r"), std::string::npos) << join;
}

// Version 4's view shows exactly version 3's kernel table: same columns in the same order, and the
// same values for an upgraded file.
TEST_F(StoreSchemaTest, KernelViewHasVersion3ColumnsAndValues) {
  const std::string v3 = PathOf("v3.db");
  ASSERT_TRUE(CreateDatabaseAtVersion(v3, 3).ok());
  {
    auto db = OpenRaw(v3);
    ASSERT_NE(db, nullptr);
    ASSERT_TRUE(db->Exec(R"sql(
      INSERT INTO runs VALUES (1, 'm.pt', '1x3', 'GPU', 'eager', 'c', 3, 1, 1700000000);
      INSERT INTO StringIds VALUES (10, 'gemm');
      INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
        ((1 << 32) + 0, 1, 0, 100, 200, 0, 1, 7, 55, 10, 10, 4, 1, 1, 128, 1, 1, 32, 0, 0, 0, 0),
        ((1 << 32) + 1, 1, 1, 150, 160, 0, 1, 8, 56, 10, NULL, 2, 2, 1, 64, 1, 1, 16, 1024, 48, 3, 9),
        ((1 << 32) + 2, 1, 2, 170, 180, 0, 1, 7, 57, 10, 10, 4, 1, 1, 128, 1, 1, 32, 0, 0, 0, 0);
      INSERT INTO kernel_time_blocks VALUES (1, 0, 2, 100, 200);
    )sql").ok());
  }
  const std::string copy = PathOf("v4.db");
  std::filesystem::copy_file(v3, copy);
  std::vector<std::string> v3_columns;
  std::string v3_rows;
  {
    auto db = OpenRaw(v3);
    ASSERT_NE(db, nullptr);
    v3_columns = Columns(*db, "CUPTI_ACTIVITY_KIND_KERNEL");
    v3_rows = Rows(*db, "SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY id");
  }
  ASSERT_TRUE(UpgradeDatabase(copy).ok());
  auto db = OpenRaw(copy);
  ASSERT_NE(db, nullptr);
  EXPECT_EQ(Columns(*db, "CUPTI_ACTIVITY_KIND_KERNEL"), v3_columns);
  EXPECT_EQ(Rows(*db, "SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY id"), v3_rows);
  EXPECT_EQ(Query(*db, "SELECT count(*) FROM kernel_launch_configs"), 2);  // two distinct configurations
  EXPECT_EQ(Query(*db, "SELECT count(*) FROM sqlite_schema WHERE name = 'nimble_migration4_configs'"), 0);
  EXPECT_EQ(Columns(*db, "kernels").size(), 12u);
}

// The writer stores each distinct launch configuration once, across batches and runs; a configuration
// first seen in a batch that rolls back is written again by the next batch that uses it.
TEST_F(StoreSchemaTest, WriterStoresEachLaunchConfigurationOnce) {
  const std::string path = PathOf("run.db");
  StringTable strings;
  auto with_config = [&](int64_t i, int32_t blocks, int32_t shared) {
    KernelRecord k = testing::MakeKernel(strings, i);
    k.grid = {blocks, 1, 1};
    k.dynamic_shared_bytes = shared;
    return k;
  };
  std::vector<KernelRecord> first;
  for (int64_t i = 0; i < 900; ++i) first.push_back(with_config(i, static_cast<int32_t>(1 + i % 3), 0));
  auto writer = RunWriter::Create(path, testing::SampleRun(RunMode::kEager), {.batch_records = 200});
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  ASSERT_TRUE((*writer)->AppendKernels(first, strings).ok());
  // A batch whose new configuration (grid 77) is written, then rolled back with the batch.
  std::vector<KernelRecord> bad = {with_config(900, 77, 4096), with_config(901, 1, 0)};
  bad[1].end_ns = bad[1].start_ns - 1;
  ASSERT_TRUE((*writer)->Flush().ok());
  ASSERT_TRUE((*writer)->AppendKernels(bad, strings).ok());  // buffered
  EXPECT_FALSE((*writer)->Flush().ok());                       // its CHECK fails: the batch rolls back
  std::vector<KernelRecord> again = {with_config(900, 77, 4096), with_config(901, 2, 0)};
  ASSERT_TRUE((*writer)->AppendKernels(again, strings).ok());
  ASSERT_TRUE((*writer)->Commit().ok());
  writer->reset();
  {
    auto db = OpenRaw(path);
    ASSERT_NE(db, nullptr);
    EXPECT_EQ(Query(*db, "SELECT count(*) FROM kernel_launch_configs"), 4);
    EXPECT_EQ(Query(*db, "SELECT count(*) FROM kernels"), 902);
    EXPECT_EQ(Query(*db, "SELECT count(*) FROM kernels k LEFT JOIN kernel_launch_configs c "
                         "ON c.id = k.launchConfigId WHERE c.id IS NULL"), 0);
  }
  // A second run reuses the file's configurations.
  auto second = RunWriter::Create(path, testing::SampleRun(RunMode::kEager));
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  ASSERT_TRUE((*second)->AppendKernels(std::span(first).first(10), strings).ok());
  ASSERT_TRUE((*second)->Commit().ok());
  second->reset();
  auto reader = RunReader::Open(path);
  ASSERT_TRUE(reader.ok());
  auto trace = (*reader)->LoadTrace(RunId(1));
  ASSERT_TRUE(trace.ok()) << trace.status().ToString();
  ASSERT_EQ(trace->kernels.size(), 902u);
  EXPECT_EQ(trace->kernels[5].grid, (Dim3{3, 1, 1}));
  EXPECT_EQ(trace->kernels[900].grid, (Dim3{77, 1, 1}));
  EXPECT_EQ(trace->kernels[900].dynamic_shared_bytes, 4096);
  EXPECT_EQ(trace->kernels[900].registers_per_thread, first[0].registers_per_thread);
  auto db = OpenRaw(path);
  ASSERT_NE(db, nullptr);
  EXPECT_EQ(Query(*db, "SELECT count(*) FROM kernel_launch_configs"), 4);
}

// A kernel that names a configuration the file lacks is an error naming the file, not zeros.
TEST_F(StoreSchemaTest, KernelWithAMissingLaunchConfigurationIsDataLoss) {
  const std::string path = PathOf("run.db");
  StringTable strings;
  std::vector<KernelRecord> kernels = {testing::MakeKernel(strings, 0)};
  auto writer = RunWriter::Create(path, testing::SampleRun(RunMode::kEager));
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->AppendKernels(kernels, strings).ok());
  ASSERT_TRUE((*writer)->Commit().ok());
  writer->reset();
  {
    auto db = OpenRaw(path);
    ASSERT_NE(db, nullptr);
    ASSERT_TRUE(db->Exec("UPDATE kernels SET launchConfigId = 99").ok());
  }
  {
    // The run's content digest sees the change first.
    auto reader = RunReader::Open(path);
    ASSERT_TRUE(reader.ok());
    auto trace = (*reader)->LoadTrace(RunId(1));
    ASSERT_FALSE(trace.ok());
    EXPECT_EQ(trace.status().code(), StatusCode::kDataLoss);
    EXPECT_NE(trace.status().message().find("table kernels of run 1 no longer matches"), std::string::npos)
        << trace.status().message();
  }
  {
    // A run without digests (written before schema 6) still gets the loader's own check.
    auto db = OpenRaw(path);
    ASSERT_NE(db, nullptr);
    ASSERT_TRUE(db->Exec("DELETE FROM run_digests").ok());
  }
  auto reader = RunReader::Open(path);
  ASSERT_TRUE(reader.ok());
  auto trace = (*reader)->LoadTrace(RunId(1));
  ASSERT_FALSE(trace.ok());
  EXPECT_EQ(trace.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(trace.status().message().find(path), std::string::npos) << trace.status().message();
  EXPECT_NE(trace.status().message().find("launch configuration 99"), std::string::npos) << trace.status().message();
}

TEST_F(StoreSchemaTest, CreateDatabaseAtVersionRefusesUnknownVersionsAndExistingFiles) {
  EXPECT_EQ(CreateDatabaseAtVersion(PathOf("a.db"), 0).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(CreateDatabaseAtVersion(PathOf("a.db"), kSchemaVersion + 1).code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(ListDir().empty());
  ASSERT_TRUE(CreateDatabaseAtVersion(PathOf("a.db"), 1).ok());
  EXPECT_EQ(CreateDatabaseAtVersion(PathOf("a.db"), 2).code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(ListDir(), std::vector<std::string>{"a.db"});
}

}  // namespace
}  // namespace nimble::store
