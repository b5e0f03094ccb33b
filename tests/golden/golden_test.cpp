// Golden ("diff") tests of nimble-prof: every case of tests/golden/cases.txt is run on a copy of its
// input and its output compared byte for byte with its file under tests/golden/expected/. With
// NIMBLE_UPDATE_GOLDENS=1 the files are written instead (tools/update_goldens.sh).
#include <gtest/gtest.h>

#include <ostream>
#include <set>
#include <string>

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

// The text after the last "$ <step>" line of a case's output: its last step's output.
std::string LastStepOutput(const std::string& output) {
  const size_t at = output.rfind("\n$ ");
  const size_t line_end = at == std::string::npos ? std::string::npos : output.find('\n', at + 1);
  return line_end == std::string::npos ? output : output.substr(line_end + 1);
}

// The viewer and `report --no-store` must not disagree on a bundled sample: the results a sample holds
// are those today's `nimble-prof report` stores. A change to what the report computes makes this fail
// until the samples are stored again (samples/recorded/README.md says how). inception_v3_compare.db is left
// out: it keeps nimble-accelerate's results as that run stored them.
TEST(RecordedSamples, HoldTheResultsTheReportStoresNow) {
  for (const char* db : {"inception_v3.db", "concurrent_streams.db"}) {
    GoldenCase held{.expected = "(held)", .input = db, .steps = {{"stored-results", {db}}}};
    GoldenCase stored{.expected = "(stored)",
                      .input = db,
                      .steps = {{"nimble-prof", {"report", db}}, {"stored-results", {db}}}};
    auto before = RunGoldenCase(held, DefaultPaths());
    auto after = RunGoldenCase(stored, DefaultPaths());
    ASSERT_TRUE(before.ok()) << before.status().ToString();
    ASSERT_TRUE(after.ok()) << after.status().ToString();
    ASSERT_FALSE(before->empty());
    EXPECT_EQ(*before, LastStepOutput(*after))
        << "samples/recorded/" << db << " holds results that an older nimble-prof stored: store them again with "
        << "`nimble-prof report samples/recorded/" << db << "` and update the golden files (tools/update_goldens.sh)";
  }
}

}  // namespace
}  // namespace nimble::golden
