// The Nsight Systems export reader on SCHEMA-SYNTHETIC exports that are damaged or hold impossible
// rows, on files that are not exports (a Nimble run database above all), and the promise that the
// input is never changed. The committed fixture is checked against its generator here too.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>

#include "make_nsys_fixture.h"
#include "nimble/store/nsys_export.h"
#include "nimble/store/run_writer.h"
#include "nsys_test_util.h"
#include "store_test_util.h"

namespace nimble::store {
namespace {

using testing::ExecSql;
using testing::FindStat;
using testing::NsysFixture;
using testing::SampleNsysFixture;

class NsysExportSchemaSyntheticErrorsTest : public testing::NsysFixtureTest {
 protected:
  // Reading `path` fails with `code`, a message that starts with the path and contains `phrase`, and
  // leaves the directory and the file exactly as they were.
  void ExpectRefused(const std::string& path, StatusCode code, const std::string& phrase) {
    const std::vector<std::string> files = ListDir();
    const bool is_file = std::filesystem::is_regular_file(path);
    const std::string bytes = is_file ? testing::ReadFileBytes(path) : "";
    EXPECT_FALSE(LooksLikeNsysExport(path));
    const Status s = ReadNsysExport(path).status();
    EXPECT_EQ(s.code(), code) << s.ToString();
    EXPECT_EQ(s.message().rfind(path + ": ", 0), 0u) << s.message();
    EXPECT_NE(s.message().find(phrase), std::string::npos) << s.message();
    EXPECT_EQ(ListDir(), files);
    if (is_file) {
      EXPECT_EQ(testing::ReadFileBytes(path), bytes);
    }
  }
};

TEST_F(NsysExportSchemaSyntheticErrorsTest, FilesThatAreNotExportsAreRefusedNamingTheFile) {
  const std::string export_path = Write(SampleNsysFixture());
  const std::string bytes = testing::ReadFileBytes(export_path);
  ASSERT_GT(bytes.size(), 8192u);

  const std::string half = PathOf("half.sqlite");
  testing::WriteFileBytes(half, bytes.substr(0, bytes.size() / 2));
  ExpectRefused(half, StatusCode::kDataLoss, "truncated");
  const std::string stub = PathOf("stub.sqlite");
  testing::WriteFileBytes(stub, bytes.substr(0, 60));
  ExpectRefused(stub, StatusCode::kDataLoss, "truncated");
  const std::string text = PathOf("notes.sqlite");
  testing::WriteFileBytes(text, std::string(5000, 'n'));
  ExpectRefused(text, StatusCode::kDataLoss, "not a SQLite database");
  const std::string empty = PathOf("empty.sqlite");
  testing::WriteFileBytes(empty, "");
  ExpectRefused(empty, StatusCode::kDataLoss, "empty");
  ExpectRefused(PathOf("missing.sqlite"), StatusCode::kNotFound, "no such file");
  std::filesystem::create_directory(PathOf("dir.sqlite"));
  ExpectRefused(PathOf("dir.sqlite"), StatusCode::kFailedPrecondition, "directory");
  const std::string other = PathOf("other.sqlite");
  ExecSql(other, "CREATE TABLE measurements (t INTEGER, value REAL); INSERT INTO measurements VALUES (1, 2.5)");
  ExpectRefused(other, StatusCode::kFailedPrecondition, "not an Nsight Systems export");
}

TEST_F(NsysExportSchemaSyntheticErrorsTest, CorruptPagesAreRefusedNamingTheFile) {
  const std::string path = Write(SampleNsysFixture());
  std::string bytes = testing::ReadFileBytes(path);
  std::mt19937_64 rng(7);
  // Pages 2 onward (1 KiB pages) hold the tables' b-trees: scramble all of them.
  for (size_t i = 1024; i < bytes.size(); ++i) bytes[i] = static_cast<char>(rng());
  testing::WriteFileBytes(path, bytes);
  const std::vector<std::string> files = ListDir();
  const Status s = ReadNsysExport(path).status();
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.message().rfind(path + ": ", 0), 0u) << s.message();
  EXPECT_EQ(ListDir(), files);
  EXPECT_EQ(testing::ReadFileBytes(path), bytes);
}

TEST_F(NsysExportSchemaSyntheticErrorsTest, NimbleRunDatabaseIsNotMistakenForAnExport) {
  // A run database names its activity tables as nsys does (CUPTI_ACTIVITY_KIND_KERNEL, StringIds...).
  const std::string path = PathOf("run.db");
  StringTable strings;
  std::vector<KernelRecord> kernels;
  for (int i = 0; i < 50; ++i) kernels.push_back(testing::MakeKernel(strings, i));
  auto writer = RunWriter::Create(path, testing::SampleRun(RunMode::kEager));
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  ASSERT_TRUE((*writer)->AppendKernels(kernels, strings).ok());
  ASSERT_TRUE((*writer)->Commit().ok());
  ExpectRefused(path, StatusCode::kFailedPrecondition, "Nimble run database");
  // Without its application id it is still told apart, by the tables only a run database has.
  ExecSql(path, "PRAGMA application_id = 0");
  ExpectRefused(path, StatusCode::kFailedPrecondition, "not an Nsight Systems export");
}

TEST_F(NsysExportSchemaSyntheticErrorsTest, ImpossibleRowsAreSkippedCountedAndNamed) {
  NsysFixture f = SampleNsysFixture();
  f.not_null_constraints = false;
  const std::string path = Write(f);
  // The first kernel (rowid 1) gets a negative stream; three more rows are impossible outright; a
  // copy's size becomes text; a second copy has a kind this build does not know; an API call names a
  // missing string; a range never ends.
  ExecSql(path,
          "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET streamId = -5 WHERE rowid = 1;"
          "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE rowid = 2;"
          "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = start - 1 WHERE rowid = (SELECT max(rowid) FROM "
          "CUPTI_ACTIVITY_KIND_KERNEL);"
          "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE rowid = 2;"
          "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET shortName = NULL WHERE rowid = (SELECT max(rowid) FROM "
          "CUPTI_ACTIVITY_KIND_KERNEL);"
          "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE rowid = 2;"
          "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET gridX = 'wide' WHERE rowid = (SELECT max(rowid) FROM "
          "CUPTI_ACTIVITY_KIND_KERNEL);"
          "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY SELECT * FROM CUPTI_ACTIVITY_KIND_MEMCPY;"
          "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET copyKind = 42, start = start + 1 WHERE rowid = 2;"
          "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET bytes = 'lots' WHERE rowid = 1;"
          "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET nameId = 999999 WHERE rowid = 1;"
          "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId) "
          "SELECT start + 1, NULL, 59, text, globalTid, domainId FROM NVTX_EVENTS WHERE eventType = 59 LIMIT 1;");
  const StatusOr<ImportedTrace> got = ReadNsysExport(path);
  ASSERT_TRUE(got.ok()) << got.status().ToString();

  Trace expected = f.trace;
  expected.kernels.erase(expected.kernels.begin());
  MemcpyRecord unknown_copy = expected.memcpys.at(0);
  unknown_copy.start_ns += 1;
  unknown_copy.copy_kind = CopyKind::kUnknown;
  expected.memcpys = {unknown_copy};
  expected.api_calls.erase(expected.api_calls.begin());
  testing::ExpectSameTrace(expected, got->trace);

  struct Expected {
    const char* stat;
    int64_t rows;
    std::vector<std::string> phrases;
  };
  for (const Expected& e :
       {Expected{"import.skipped_kernels", 4,
                 {"CUPTI_ACTIVITY_KIND_KERNEL", "streamId is negative (1)", "end is before start (1)",
                  "shortName is NULL (1)", "gridX is text, not an integer (1)"}},
        Expected{"import.skipped_memcpys", 1, {"CUPTI_ACTIVITY_KIND_MEMCPY", "bytes is text"}},
        Expected{"import.skipped_api_calls", 1, {"CUPTI_ACTIVITY_KIND_RUNTIME", "nameId names a string id"}},
        Expected{"import.skipped_nvtx_ranges", 1, {"NVTX_EVENTS", "never ended"}},
        Expected{"import.unknown_enum_values", 1, {"CUPTI_ACTIVITY_KIND_MEMCPY.copyKind 42 (1)"}}}) {
    SCOPED_TRACE(e.stat);
    const StatEntry* stat = FindStat(*got, e.stat);
    ASSERT_NE(stat, nullptr);
    EXPECT_EQ(stat->severity, Severity::kWarning);
    EXPECT_EQ(stat->value, e.rows);
    for (const std::string& phrase : e.phrases) {
      EXPECT_NE(stat->description.find(phrase), std::string::npos) << stat->description;
    }
  }
}

TEST_F(NsysExportSchemaSyntheticErrorsTest, SeveralProcessesAndUnlinkedKernelsAreWarnings) {
  const std::string path = Write(SampleNsysFixture());
  const ImportedTrace clean = *ReadNsysExport(path);
  EXPECT_EQ(FindStat(clean, "import.multiple_processes"), nullptr);
  EXPECT_EQ(FindStat(clean, "import.unlinked_kernels"), nullptr);
  // A kernel of another process, with a correlation id no API call has.
  ExecSql(path,
          "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE rowid = 1;"
          "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET globalPid = globalPid + (1 << 24), correlationId = 99999 "
          "WHERE rowid = (SELECT max(rowid) FROM CUPTI_ACTIVITY_KIND_KERNEL);");
  const StatusOr<ImportedTrace> got = ReadNsysExport(path);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  const StatEntry* processes = FindStat(*got, "import.multiple_processes");
  ASSERT_NE(processes, nullptr);
  EXPECT_EQ(processes->value, 2);
  const StatEntry* unlinked = FindStat(*got, "import.unlinked_kernels");
  ASSERT_NE(unlinked, nullptr);
  EXPECT_EQ(unlinked->value, 1);
}

TEST_F(NsysExportSchemaSyntheticErrorsTest, ReadingNeverChangesTheInputOrItsDirectory) {
  const std::string path = Write(SampleNsysFixture());
  ASSERT_EQ(chmod(path.c_str(), 0444), 0);
  const std::vector<std::string> files = ListDir();
  const std::string bytes = testing::ReadFileBytes(path);
  EXPECT_TRUE(LooksLikeNsysExport(path));
  const StatusOr<ImportedTrace> got = ReadNsysExport(path);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(ListDir(), files);  // no -journal, -wal or -shm
  EXPECT_EQ(testing::ReadFileBytes(path), bytes);
}

TEST(NsysExportCommittedFixture, SampleSchemaSyntheticMatchesItsGenerator) {
  // tests/store/data/nsys/sample_schema_synthetic.sqlite, written by nimble_make_nsys_fixture: it must
  // be regenerated whenever SampleNsysFixture changes (see the README beside it).
  const std::string path = std::string(NIMBLE_SOURCE_DIR) + "/tests/store/data/nsys/sample_schema_synthetic.sqlite";
  ASSERT_TRUE(LooksLikeNsysExport(path)) << path;
  const StatusOr<ImportedTrace> got = ReadNsysExport(path);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  testing::ExpectSameTrace(SampleNsysFixture().trace, got->trace);
}

}  // namespace
}  // namespace nimble::store
