// The private SQLite wrapper: errors name the file, transactions roll back unless committed,
// statements are reusable and map NULL to invalid ids.
#include "sqlite_db.h"

#include <gtest/gtest.h>

#include "store_test_util.h"

namespace nimble::store {
namespace {

using testing::TempDirTest;

class StoreSqliteDbTest : public TempDirTest {
 protected:
  std::unique_ptr<Database> Create(const std::string& name) {
    auto db = Database::Open(PathOf(name), OpenMode::kCreate);
    EXPECT_TRUE(db.ok()) << db.status().ToString();
    return db.ok() ? std::move(db).value() : nullptr;
  }
};

TEST_F(StoreSqliteDbTest, ErrorsStartWithThePathAndCarryTheSqliteMessage) {
  auto db = Create("a.db");
  ASSERT_NE(db, nullptr);
  auto bad = db->Prepare("SELECT * FROM no_such_table");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().rfind(PathOf("a.db") + ": preparing", 0), 0u) << bad.status().message();
  EXPECT_NE(bad.status().message().find("no such table: no_such_table"), std::string::npos);
  ASSERT_TRUE(db->Exec("CREATE TABLE t (x INTEGER NOT NULL CHECK (x > 0))").ok());
  auto insert = db->Prepare("INSERT INTO t VALUES (?)");
  ASSERT_TRUE(insert.ok());
  insert->BindInt(1, -1);
  Status failed = insert->Run();
  EXPECT_EQ(failed.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(failed.message().find("SQLITE_CONSTRAINT"), std::string::npos) << failed.message();
  insert->BindInt(1, 5);
  EXPECT_TRUE(insert->Run().ok()) << "a statement is not reusable after a failure";
  EXPECT_EQ(*db->QueryInt("SELECT sum(x) FROM t"), 5);
}

TEST_F(StoreSqliteDbTest, OpeningInAMissingDirectorySaysWhy) {
  const std::string path = PathOf("missing/a.db");
  auto db = Database::Open(path, OpenMode::kCreate);
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status().message().rfind(path + ": cannot open", 0), 0u) << db.status().message();
  EXPECT_NE(db.status().message().find("No such file or directory"), std::string::npos) << db.status().message();
}

TEST_F(StoreSqliteDbTest, TransactionRollsBackUnlessCommitted) {
  auto db = Create("a.db");
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(db->Exec("CREATE TABLE t (x)").ok());
  {
    auto txn = Transaction::Begin(*db);
    ASSERT_TRUE(txn.ok());
    ASSERT_TRUE(db->Exec("INSERT INTO t VALUES (1)").ok());
  }
  EXPECT_EQ(*db->QueryInt("SELECT count(*) FROM t"), 0);
  {
    auto txn = Transaction::Begin(*db);
    ASSERT_TRUE(txn.ok());
    ASSERT_TRUE(db->Exec("INSERT INTO t VALUES (2)").ok());
    ASSERT_TRUE(txn->Commit().ok());
  }
  EXPECT_EQ(*db->QueryInt("SELECT count(*) FROM t"), 1);
}

TEST_F(StoreSqliteDbTest, IdsRoundTripWithNullForInvalid) {
  auto db = Create("a.db");
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(db->Exec("CREATE TABLE t (id INTEGER)").ok());
  auto insert = db->Prepare("INSERT INTO t VALUES (?)");
  ASSERT_TRUE(insert.ok());
  for (StreamId id : {StreamId(), StreamId(0), StreamId(int64_t{1} << 40)}) {
    insert->BindId(1, id);
    ASSERT_TRUE(insert->Run().ok());
  }
  EXPECT_EQ(*db->QueryInt("SELECT count(*) FROM t WHERE id IS NULL"), 1);
  auto select = db->Prepare("SELECT id FROM t ORDER BY rowid");
  ASSERT_TRUE(select.ok());
  std::vector<StreamId> read;
  while (*select->Step()) read.push_back(select->ColumnId<StreamId>(0));
  EXPECT_EQ(read, (std::vector<StreamId>{StreamId(), StreamId(0), StreamId(int64_t{1} << 40)}));
}

TEST_F(StoreSqliteDbTest, QueryOnlyConnectionRefusesWrites) {
  {
    auto db = Create("a.db");
    ASSERT_NE(db, nullptr);
    ASSERT_TRUE(db->Exec("CREATE TABLE t (x)").ok());
  }
  auto db = Database::Open(PathOf("a.db"), OpenMode::kQueryOnly);
  ASSERT_TRUE(db.ok());
  EXPECT_FALSE((*db)->Exec("INSERT INTO t VALUES (1)").ok());
  EXPECT_EQ(*(*db)->QueryInt("SELECT count(*) FROM t"), 0);
}

}  // namespace
}  // namespace nimble::store
