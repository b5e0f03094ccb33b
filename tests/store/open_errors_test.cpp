// Files the store must refuse: each gives an error that starts with the path and says what is wrong,
// never a crash, and leaves the file and its directory exactly as they were.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <functional>

#include "nimble/store/run_reader.h"
#include "nimble/store/run_writer.h"
#include "nimble/store/schema.h"
#include "sqlite_db.h"
#include "store_test_util.h"

namespace nimble::store {
namespace {

using testing::TempDirTest;

class StoreOpenErrorsTest : public TempDirTest {
 protected:
  // A committed database with enough kernels to span many pages.
  void WriteRealDatabase(const std::string& path) {
    StringTable strings;
    std::vector<KernelRecord> kernels;
    for (int i = 0; i < 5000; ++i) kernels.push_back(testing::MakeKernel(strings, i));
    auto writer = RunWriter::Create(path, testing::SampleRun(RunMode::kEager));
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->AppendKernels(kernels, strings).ok());
    ASSERT_TRUE((*writer)->Commit().ok());
  }

  void SetUserVersion(const std::string& path, int version) {
    auto db = Database::Open(path, OpenMode::kReadWrite);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->Exec("PRAGMA user_version = " + std::to_string(version)).ok());
  }

  // Every way of opening `path` fails with a message that starts with it and contains `phrase`,
  // and the directory and the file's bytes are unchanged afterwards.
  void ExpectRefusedUnchanged(const std::string& path, const std::string& phrase) {
    const std::vector<std::string> files = ListDir();
    const std::string bytes = testing::ReadFileBytes(path);
    const std::vector<std::pair<std::string, std::function<Status()>>> attempts = {
        {"RunReader::Open", [&] { return RunReader::Open(path).status(); }},
        {"RunWriter::Create", [&] { return RunWriter::Create(path, testing::SampleRun(RunMode::kEager)).status(); }},
        {"RunWriter::OpenRun", [&] { return RunWriter::OpenRun(path, RunId(1)).status(); }},
        {"UpgradeDatabase", [&] { return UpgradeDatabase(path); }},
    };
    for (const auto& [name, attempt] : attempts) {
      SCOPED_TRACE(name);
      const Status status = attempt();
      ASSERT_FALSE(status.ok());
      EXPECT_EQ(status.message().rfind(path + ": ", 0), 0u) << status.message();
      EXPECT_NE(status.message().find(phrase), std::string::npos) << status.message();
      EXPECT_EQ(ListDir(), files);
      EXPECT_EQ(testing::ReadFileBytes(path), bytes);
    }
  }
};

TEST_F(StoreOpenErrorsTest, TruncatedDatabase) {
  const std::string path = PathOf("run.db");
  WriteRealDatabase(path);
  const std::string bytes = testing::ReadFileBytes(path);
  ASSERT_GT(bytes.size(), 100'000u);
  testing::WriteFileBytes(path, bytes.substr(0, bytes.size() / 2));
  ExpectRefusedUnchanged(path, "truncated");
}

TEST_F(StoreOpenErrorsTest, TextFile) {
  const std::string path = PathOf("notes.db");
  std::string text;
  for (int i = 0; i < 200; ++i) text += "these are notes, not a database " + std::to_string(i) + "\n";
  testing::WriteFileBytes(path, text);
  ExpectRefusedUnchanged(path, "not a SQLite database");
}

TEST_F(StoreOpenErrorsTest, ShortFile) {
  const std::string path = PathOf("short.db");
  testing::WriteFileBytes(path, "SQLite");
  ExpectRefusedUnchanged(path, "truncated");
}

TEST_F(StoreOpenErrorsTest, EmptyFile) {
  const std::string path = PathOf("empty.db");
  testing::WriteFileBytes(path, "");
  ExpectRefusedUnchanged(path, "empty");
}

TEST_F(StoreOpenErrorsTest, SqliteMagicFollowedByGarbage) {
  const std::string path = PathOf("garbage.db");
  std::mt19937_64 rng(7);
  std::string bytes("SQLite format 3\0", 16);
  for (int i = 0; i < 8192; ++i) bytes.push_back(static_cast<char>(rng()));
  testing::WriteFileBytes(path, bytes);
  const Status status = RunReader::Open(path).status();
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message().rfind(path + ": ", 0), 0u) << status.message();
}

TEST_F(StoreOpenErrorsTest, NewerSchema) {
  const std::string path = PathOf("future.db");
  WriteRealDatabase(path);
  SetUserVersion(path, 99);
  ExpectRefusedUnchanged(path, "was written by a newer Nimble (schema 99; this build reads up to " +
                                   std::to_string(kSchemaVersion) + ")");
  EXPECT_EQ(RunReader::Open(path).status().code(), StatusCode::kFailedPrecondition);
}

TEST_F(StoreOpenErrorsTest, SqliteDatabaseThatIsNotNimbles) {
  const std::string path = PathOf("other.db");
  {
    auto db = Database::Open(path, OpenMode::kCreate);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->Exec("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT); "
                            "INSERT INTO customers VALUES (1, 'x'); PRAGMA user_version = 1").ok());
  }
  ExpectRefusedUnchanged(path, "not a Nimble run database");
}

TEST_F(StoreOpenErrorsTest, NimbleFileWhoseCreationNeverFinished) {
  const std::string path = PathOf("half.db");
  {
    auto db = Database::Open(path, OpenMode::kCreate);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->Exec("PRAGMA application_id = 1313686092; CREATE TABLE StringIds (id, value)").ok());
  }
  ExpectRefusedUnchanged(path, "never completely created");
}

TEST_F(StoreOpenErrorsTest, MissingFileIsNotFoundForReadersAndIsNotCreated) {
  const std::string path = PathOf("missing.db");
  const Status status = RunReader::Open(path).status();
  EXPECT_EQ(status.code(), StatusCode::kNotFound);
  EXPECT_EQ(status.message(), path + ": no such file");
  EXPECT_EQ(UpgradeDatabase(path).code(), StatusCode::kNotFound);
  EXPECT_TRUE(ListDir().empty());
}

TEST_F(StoreOpenErrorsTest, DirectoryIsRefused) {
  const std::string path = PathOf("adir");
  std::filesystem::create_directory(path);
  const Status status = RunReader::Open(path).status();
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message().rfind(path + ": ", 0), 0u) << status.message();
  EXPECT_FALSE(RunWriter::Create(path, testing::SampleRun(RunMode::kEager)).ok());
  EXPECT_EQ(ListDir(), std::vector<std::string>{"adir"});
  EXPECT_TRUE(std::filesystem::is_empty(path));
}

TEST_F(StoreOpenErrorsTest, UnwritableLocationsFailNamingThePathAndCreateNothing) {
  const std::string in_missing_dir = PathOf("no/such/dir/run.db");
  const std::string in_proc = "/proc/nimble_store_test_" + std::to_string(getpid()) + ".db";
  for (const std::string& path : {in_missing_dir, in_proc}) {
    SCOPED_TRACE(path);
    for (const Status& status : {RunWriter::Create(path, testing::SampleRun(RunMode::kEager)).status(),
                                 CreateDatabaseAtVersion(path, 1), RunReader::Open(path).status()}) {
      ASSERT_FALSE(status.ok());
      EXPECT_EQ(status.message().rfind(path + ": ", 0), 0u) << status.message();
    }
    EXPECT_FALSE(std::filesystem::exists(path));
    EXPECT_FALSE(std::filesystem::exists(path + ".partial"));
  }
  EXPECT_TRUE(ListDir().empty());
  EXPECT_NE(
      RunWriter::Create(in_missing_dir, testing::SampleRun(RunMode::kEager)).status().message().find("does not exist"),
      std::string::npos);
}

TEST_F(StoreOpenErrorsTest, ReadOnlyFileIsReadableButNotWritableOrUpgradable) {
  const std::string current = PathOf("current.db");
  const std::string old = PathOf("old.db");
  WriteRealDatabase(current);
  ASSERT_TRUE(CreateDatabaseAtVersion(old, 1).ok());
  chmod(current.c_str(), 0444);
  chmod(old.c_str(), 0444);
  chmod(dir_.c_str(), 0555);
  const std::string old_bytes = testing::ReadFileBytes(old);
  const std::string result = testing::RunWithoutPermissionOverride([&]() -> std::string {
    auto reader = RunReader::Open(current);
    if (!reader.ok()) return "reading a read-only file failed: " + reader.status().ToString();
    auto trace = (*reader)->LoadTrace(RunId(1));
    if (!trace.ok() || trace->kernels.size() != 5000) return "read-only file did not load its 5000 kernels";
    reader->reset();
    const Status write = RunWriter::Create(current, testing::SampleRun(RunMode::kEager)).status();
    if (write.ok() || write.message().rfind(current + ": ", 0) != 0) return "writing: " + write.ToString();
    const Status upgrade = RunReader::Open(old).status();
    if (upgrade.ok() || upgrade.message().rfind(old + ": ", 0) != 0 ||
        upgrade.message().find("must be upgraded") == std::string::npos) {
      return "upgrading: " + upgrade.ToString();
    }
    return "";
  });
  chmod(dir_.c_str(), 0755);
  EXPECT_EQ(result, "");
  EXPECT_EQ(testing::ReadFileBytes(old), old_bytes);
  EXPECT_EQ(ListDir(), (std::vector<std::string>{"current.db", "old.db"}));
}

}  // namespace
}  // namespace nimble::store
