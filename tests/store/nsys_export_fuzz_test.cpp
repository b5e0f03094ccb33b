// A bounded, seeded mutation fuzz of the export reader on SCHEMA-SYNTHETIC exports: truncations,
// changed bytes, and SQL that puts NULLs, extreme values and wrong types into rows, drops tables and
// columns or rewrites the schema version. Every mutant must give an error that names the file or a
// trace that keeps the records' invariants: no crash, no hang, never a half-read row.
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <memory>

#include "make_nsys_fixture.h"
#include "nimble/store/nsys_export.h"
#include "nsys_test_util.h"
#include "sqlite_db.h"
#include "store_test_util.h"

namespace nimble::store {
namespace {

constexpr int kMutants = 300;
constexpr uint64_t kSeed = 20261124;
constexpr auto kBudget = std::chrono::seconds(20);
constexpr auto kPerMutantLimit = std::chrono::seconds(2);

const std::vector<std::string>& Values() {
  static const std::vector<std::string> values = {
      "NULL", "0", "-1", "1", "9223372036854775807", "-9223372036854775808", "2147483647", "4294967295",
      "1e300", "-0.5", "'text'", "x'00ff'", "''", "34", "59", "60", "75", "'3.28.1'", "'99.0.0'", "16777216"};
  return values;
}

int64_t Uniform(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

template <typename T>
const T& Pick(std::mt19937_64& rng, const std::vector<T>& v) {
  return v[static_cast<size_t>(Uniform(rng, 0, static_cast<int64_t>(v.size()) - 1))];
}

std::vector<std::string> Strings(Database& db, const std::string& sql) {
  std::vector<std::string> out;
  auto q = db.Prepare(sql);
  if (!q.ok()) return out;
  while (true) {
    auto row = q->Step();
    if (!row.ok() || !*row) return out;
    out.push_back(q->ColumnText(0));
  }
}

// One SQL change to the copy at `path`; a change SQLite refuses leaves the copy as it was.
std::string MutateWithSql(const std::string& path, std::mt19937_64& rng) {
  auto db = Database::Open(path, OpenMode::kReadWrite);
  if (!db.ok()) return "open failed";
  const std::vector<std::string> tables = Strings(**db, "SELECT name FROM sqlite_schema WHERE type = 'table'");
  if (tables.empty()) return "no tables";
  const std::string table = Pick(rng, tables);
  const std::vector<std::string> columns = Strings(**db, "SELECT name FROM pragma_table_info('" + table + "')");
  if (columns.empty()) return "no columns";
  const std::string column = "\"" + Pick(rng, columns) + "\"";
  const std::string row = "(SELECT rowid FROM \"" + table + "\" LIMIT 1 OFFSET " + std::to_string(Uniform(rng, 0, 3)) + ")";
  std::string sql;
  switch (Uniform(rng, 0, 5)) {
    case 0:
    case 1: sql = "UPDATE \"" + table + "\" SET " + column + " = " + Pick(rng, Values()) + " WHERE rowid = " + row; break;
    case 2: {
      std::string names, values;
      for (const std::string& c : columns) {
        names += (names.empty() ? "\"" : ", \"") + c + "\"";
        values += (values.empty() ? "" : ", ") + Pick(rng, Values());
      }
      sql = "INSERT INTO \"" + table + "\" (" + names + ") VALUES (" + values + ")";
      break;
    }
    case 3: sql = "ALTER TABLE \"" + table + "\" DROP COLUMN " + column; break;
    case 4: sql = Uniform(rng, 0, 1) ? "DROP TABLE \"" + table + "\"" : "DELETE FROM \"" + table + "\" WHERE rowid = " + row; break;
    default: sql = "UPDATE META_DATA_EXPORT SET value = " + Pick(rng, Values()) + " WHERE name = 'EXPORT_SCHEMA_VERSION'";
  }
  (void)(*db)->Exec(sql);
  (void)(*db)->Close();
  return sql;
}

class NsysExportSchemaSyntheticFuzzTest : public testing::TempDirTest {};

TEST_F(NsysExportSchemaSyntheticFuzzTest, MutantsGiveAnErrorNamingTheFileOrASoundTrace) {
  std::mt19937_64 rng(kSeed);
  std::vector<std::string> seeds;
  testing::NsysFixture sample = testing::SampleNsysFixture();
  testing::NsysFixture random = testing::RandomNsysFixture(rng, 8);
  for (testing::NsysFixture* f : {&sample, &random}) {
    f->not_null_constraints = false;  // lets the SQL mutations store NULL anywhere
    const std::string path = PathOf("seed_" + std::to_string(seeds.size()) + "_schema_synthetic.sqlite");
    ASSERT_TRUE(testing::WriteNsysFixture(path, *f).ok());
    ASSERT_TRUE(ReadNsysExport(path).ok());
    seeds.push_back(testing::ReadFileBytes(path));
  }
  const std::string path = PathOf("mutant_schema_synthetic.sqlite");
  const auto begin = std::chrono::steady_clock::now();
  int errors = 0, traces = 0;
  for (int i = 0; i < kMutants; ++i) {
    std::string bytes = seeds[static_cast<size_t>(i) % seeds.size()];
    std::string mutation;
    switch (Uniform(rng, 0, 2)) {
      case 0: {
        const auto size = static_cast<size_t>(Uniform(rng, 0, static_cast<int64_t>(bytes.size()) - 1));
        bytes.resize(size);
        mutation = "truncated to " + std::to_string(size);
        break;
      }
      case 1:
        for (int64_t n = Uniform(rng, 1, 16); n > 0; --n) {
          // One change in four lands in the header and the schema page, where it hurts most.
          const int64_t end = Uniform(rng, 0, 3) == 0 ? 1023 : static_cast<int64_t>(bytes.size()) - 1;
          const auto at = static_cast<size_t>(Uniform(rng, 0, end));
          bytes[at] = static_cast<char>(Uniform(rng, 0, 255));
          mutation += "byte " + std::to_string(at) + " ";
        }
        break;
      default: break;
    }
    testing::WriteFileBytes(path, bytes);
    if (mutation.empty()) mutation = MutateWithSql(path, rng);
    SCOPED_TRACE("mutant " + std::to_string(i) + ": " + mutation);
    const auto start = std::chrono::steady_clock::now();
    (void)LooksLikeNsysExport(path);
    const StatusOr<ImportedTrace> got = ReadNsysExport(path);
    EXPECT_LT(std::chrono::steady_clock::now() - start, kPerMutantLimit);
    if (got.ok()) {
      ++traces;
      EXPECT_EQ(testing::CheckTraceInvariants(got->trace), "");
    } else {
      ++errors;
      EXPECT_EQ(got.status().message().rfind(path + ": ", 0), 0u) << got.status().message();
    }
    ASSERT_LT(std::chrono::steady_clock::now() - begin, kBudget);
  }
  // Both outcomes occur, or the mutations are too weak (or too strong) to test anything.
  EXPECT_GT(errors, kMutants / 10);
  EXPECT_GT(traces, kMutants / 10);
  std::cout << "[ fuzz     ] " << kMutants << " mutants: " << errors << " errors, " << traces << " traces\n";
}

}  // namespace
}  // namespace nimble::store
