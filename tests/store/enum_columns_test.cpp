// The text columns that hold an enum (runs.mode, speedups.mode, stats.severity): written by the names
// in core/run.h, which the file format keeps, and a name this build does not know (a file from a later
// Nimble, or one edited by hand) refused where it is read, naming the file, the table and the value.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "nimble/store/run_reader.h"
#include "nimble/store/run_writer.h"
#include "sqlite_db.h"
#include "store_test_util.h"

namespace nimble::store {
namespace {

class StoreEnumColumnsTest : public testing::TempDirTest {
 protected:
  // One run of each mode, each with a speedup per mode and a stat per severity.
  void WriteRuns(const std::string& path) {
    for (RunMode mode : kModes) {
      auto writer = RunWriter::Create(path, testing::SampleRun(mode));
      ASSERT_TRUE(writer.ok()) << writer.status().ToString();
      std::vector<Speedup> speedups;
      for (RunMode other : kModes) speedups.push_back({other, 1, 2, 3});
      ASSERT_TRUE((*writer)->WriteSpeedups(speedups).ok());
      for (Severity severity : kSeverities) {
        ASSERT_TRUE((*writer)->AddStat({SeverityName(severity), 1, severity, "d"}).ok());
      }
      ASSERT_TRUE((*writer)->Commit().ok());
    }
  }

  void Exec(const std::string& path, const std::string& sql) {
    auto db = Database::Open(path, OpenMode::kReadWrite);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    ASSERT_TRUE((*db)->Exec(sql).ok()) << sql;
  }

  static constexpr RunMode kModes[] = {RunMode::kProgram, RunMode::kEager, RunMode::kAotSingle, RunMode::kAotMulti};
  static constexpr Severity kSeverities[] = {Severity::kInfo, Severity::kWarning, Severity::kError};
};

TEST_F(StoreEnumColumnsTest, StoredAsTheirNamesAndReadBack) {
  const std::string path = PathOf("run.db");
  WriteRuns(path);
  auto db = Database::Open(path, OpenMode::kReadOnly);
  ASSERT_TRUE(db.ok());
  auto texts = [&](const std::string& sql) {
    std::vector<std::string> out;
    auto q = (*db)->Prepare(sql);
    EXPECT_TRUE(q.ok()) << q.status().ToString();
    while (q.ok()) {
      StatusOr<bool> row = q->Step();
      if (!row.ok() || !*row) break;
      out.push_back(q->ColumnText(0));
    }
    return out;
  };
  EXPECT_EQ(texts("SELECT mode FROM runs ORDER BY runId"),
            (std::vector<std::string>{"program", "eager", "aot-single", "aot-multi"}));
  EXPECT_EQ(texts("SELECT mode FROM speedups WHERE runId = 1 ORDER BY rowid"),
            (std::vector<std::string>{"program", "eager", "aot-single", "aot-multi"}));
  EXPECT_EQ(texts("SELECT severity FROM stats WHERE runId = 1 ORDER BY rowid"),
            (std::vector<std::string>{"info", "warning", "error"}));
  db->reset();

  auto reader = RunReader::Open(path);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto runs = (*reader)->Runs();
  ASSERT_TRUE(runs.ok()) << runs.status().ToString();
  ASSERT_EQ(runs->size(), std::size(kModes));
  for (size_t i = 0; i < runs->size(); ++i) {
    EXPECT_EQ((*runs)[i].mode, kModes[i]);
    auto speedups = (*reader)->LoadSpeedups((*runs)[i].id);
    ASSERT_TRUE(speedups.ok()) << speedups.status().ToString();
    ASSERT_EQ(speedups->size(), std::size(kModes));
    for (size_t j = 0; j < speedups->size(); ++j) EXPECT_EQ((*speedups)[j].mode, kModes[j]);
    auto stats = (*reader)->LoadStats((*runs)[i].id);
    ASSERT_TRUE(stats.ok()) << stats.status().ToString();
    ASSERT_EQ(stats->size(), std::size(kSeverities));
    for (size_t j = 0; j < stats->size(); ++j) EXPECT_EQ((*stats)[j].severity, kSeverities[j]);
  }
}

TEST_F(StoreEnumColumnsTest, UnknownNamesAreRefusedNamingTheFileTheTableAndTheValue) {
  const std::string path = PathOf("run.db");
  WriteRuns(path);
  // The stats column admits '' (version 1's CHECK): an older writer's "keep the stored severity".
  Exec(path, "UPDATE runs SET mode = 'aot-triple' WHERE runId = 3; "
             "UPDATE speedups SET mode = 'Eager' WHERE runId = 2 AND mode = 'eager'; "
             "UPDATE stats SET severity = '' WHERE runId = 4 AND name = 'warning'");
  auto reader = RunReader::Open(path);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  const auto expect = [&](const Status& status, const std::string& message) {
    EXPECT_EQ(status.code(), StatusCode::kDataLoss) << status.ToString();
    EXPECT_EQ(status.message(), path + ": " + message);
  };
  expect((*reader)->Runs().status(), "table runs, run 3: unknown mode 'aot-triple'");
  expect((*reader)->Run(RunId(3)).status(), "table runs, run 3: unknown mode 'aot-triple'");
  EXPECT_EQ((*reader)->Run(RunId(2))->mode, RunMode::kEager) << "the other runs stay readable";
  expect((*reader)->LoadSpeedups(RunId(2)).status(), "table speedups, run 2: unknown mode 'Eager'");
  EXPECT_TRUE((*reader)->LoadSpeedups(RunId(1)).ok());
  expect((*reader)->LoadStats(RunId(4)).status(), "table stats, run 4: unknown severity ''");
  EXPECT_TRUE((*reader)->LoadStats(RunId(1)).ok());
}

}  // namespace
}  // namespace nimble::store
