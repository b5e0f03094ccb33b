// Golden ("diff") tests of nimble-prof: every case of tests/golden/cases.txt is run on a copy of its
// input and its output compared byte for byte with its file under tests/golden/expected/. With
// NIMBLE_UPDATE_GOLDENS=1 the files are written instead (tools/update_goldens.sh).
#include <gtest/gtest.h>

#include <ostream>
#include <set>

#include "golden_compare.h"
#include "golden_files.h"

namespace nimble::golden {

// GoogleTest prints parameters in failure messages; the cases-file line finds the case.
void PrintTo(const GoldenCase& c, std::ostream* out) { *out << c.expected << " (cases.txt line " << c.line << ")"; }

namespace {

namespace fs = std::filesystem;

class GoldenTest : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(GoldenTest, MatchesExpected) {
  const GoldenCase& c = GetParam();
  const fs::path expected_path = ExpectedDir() / c.expected;
  auto actual = RunGoldenCase(c, DefaultPaths());
  ASSERT_TRUE(actual.ok()) << actual.status().ToString();

  if (UpdateMode()) {
    ASSERT_FALSE(actual->empty()) << c.expected << ": the case printed nothing, so its golden file would pin nothing";
    if (!fs::exists(expected_path) || ReadFile(expected_path) != *actual) {
      WriteFile(expected_path, *actual);
      std::cout << "updated " << expected_path.string() << "\n";
    }
    return;
  }
  ASSERT_TRUE(fs::exists(expected_path)) << "missing expected file " << expected_path.string() << "\n"
                                         << RegenerateHint(c);
  if (const auto mismatch = DescribeMismatch(ReadFile(expected_path), *actual)) {
    ADD_FAILURE() << expected_path.string() << " (cases.txt line " << c.line << "):\n" << *mismatch << RegenerateHint(c);
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, GoldenTest, ::testing::ValuesIn(Cases().cases),
                         [](const auto& info) { return info.param.TestName(); });
// A cases file that does not parse instantiates nothing; GoldenCasesFile.Parses says why.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GoldenTest);

TEST(GoldenCasesFile, Parses) {
  EXPECT_EQ(Cases().error, "");
  EXPECT_FALSE(Cases().cases.empty()) << "no golden cases: nothing is pinned";
}

// An expected file no case names would never be compared again: it pins nothing and misleads.
TEST(GoldenCasesFile, EveryExpectedFileHasACase) {
  std::set<std::string> named;
  for (const GoldenCase& c : Cases().cases) named.insert(c.expected);
  for (const auto& entry : fs::directory_iterator(ExpectedDir())) {
    const std::string name = entry.path().filename().string();
    EXPECT_TRUE(named.contains(name)) << "tests/golden/expected/" << name
                                      << " belongs to no case of cases.txt: delete it, or add its case";
  }
}

}  // namespace
}  // namespace nimble::golden
