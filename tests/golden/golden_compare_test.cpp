// The golden machinery checked on its own, so that the golden tests cannot pass vacuously: the
// comparison catches a one-byte change in a real expected file and an empty one, and the cases
// parser refuses what it does not understand rather than skipping it.
#include <gtest/gtest.h>

#include <algorithm>

#include "golden_compare.h"
#include "golden_files.h"

namespace nimble::golden {
namespace {

TEST(DescribeMismatchTest, EqualTextsMatch) { EXPECT_FALSE(DescribeMismatch("a\nb\n", "a\nb\n").has_value()); }

TEST(DescribeMismatchTest, EmptyExpectedNeverMatches) {
  EXPECT_TRUE(DescribeMismatch("", "").has_value());
  EXPECT_TRUE(DescribeMismatch("", "output\n").has_value());
}

TEST(DescribeMismatchTest, NamesTheFirstDifferingLines) {
  const auto m = DescribeMismatch("a\nb\nc\nd\n", "a\nB\nc\nD\ne\n");
  ASSERT_TRUE(m.has_value());
  EXPECT_NE(m->find("line 2:\n    expected: 'b'\n    actual:   'B'"), std::string::npos) << *m;
  EXPECT_NE(m->find("line 4:"), std::string::npos) << *m;
  EXPECT_NE(m->find("line 5:\n    expected: (no line)\n    actual:   'e'"), std::string::npos) << *m;
  EXPECT_EQ(m->find("line 1:"), std::string::npos) << *m;
}

TEST(DescribeMismatchTest, StopsAfterMaxLines) {
  const auto m = DescribeMismatch("1\n2\n3\n", "x\ny\nz\n", 2);
  ASSERT_TRUE(m.has_value());
  EXPECT_NE(m->find("line 2:"), std::string::npos);
  EXPECT_EQ(m->find("line 3:"), std::string::npos);
}

TEST(DescribeMismatchTest, CatchesAMissingFinalNewline) {
  const auto m = DescribeMismatch("a\nb\n", "a\nb");
  ASSERT_TRUE(m.has_value());
  EXPECT_NE(m->find("final newline"), std::string::npos) << *m;
}

// The planted violation: a real case's real output against its expected file with one digit changed.
TEST(DescribeMismatchTest, CatchesAnAlteredExpectedFile) {
  const GoldenCase* c = FindCase("report_concurrent_streams.txt");
  ASSERT_NE(c, nullptr) << "the self-test needs this case in cases.txt";
  const auto actual = RunGoldenCase(*c, DefaultPaths());
  ASSERT_TRUE(actual.ok()) << actual.status().ToString();
  std::string expected = ReadFile(ExpectedDir() / c->expected);
  ASSERT_FALSE(DescribeMismatch(expected, *actual).has_value()) << "the unaltered file must match";

  const size_t at = expected.find("kernels");
  ASSERT_NE(at, std::string::npos);
  const size_t digit = expected.find_first_of("0123456789", at);
  expected[digit] = expected[digit] == '9' ? '1' : static_cast<char>(expected[digit] + 1);
  const int line = 1 + static_cast<int>(std::count(expected.begin(), expected.begin() + digit, '\n'));
  const auto m = DescribeMismatch(expected, *actual);
  ASSERT_TRUE(m.has_value()) << "a changed kernel count went unnoticed";
  EXPECT_NE(m->find("line " + std::to_string(line) + ":"), std::string::npos) << *m;
}

TEST(ParseGoldenCasesTest, ReadsCasesAndSkipsComments) {
  const auto cases = ParseGoldenCases(
      "# comment\n\n"
      "info.txt  a.db  stdout  nimble-prof info a.db\n"
      "err.txt   -     all     nimble-prof report missing.db\n"
      "st.txt    a.db  stdout  clear-results a.db ; nimble-prof report a.db ; stored-results a.db\n"
      "m.json    a.db  masked-json  nimble-prof report --json a.db\n");
  ASSERT_TRUE(cases.ok()) << cases.status().ToString();
  ASSERT_EQ(cases->size(), 4u);
  EXPECT_EQ((*cases)[0].line, 3);
  EXPECT_EQ((*cases)[0].input, "a.db");
  EXPECT_EQ((*cases)[0].steps[0].Line(), "nimble-prof info a.db");
  EXPECT_EQ((*cases)[1].input, "");
  EXPECT_EQ((*cases)[1].capture, Capture::kAll);
  ASSERT_EQ((*cases)[2].steps.size(), 3u);
  EXPECT_EQ((*cases)[2].steps[1].args, (std::vector<std::string>{"report", "a.db"}));
  EXPECT_EQ((*cases)[3].capture, Capture::kMaskedJson);
  EXPECT_EQ((*cases)[3].TestName(), "m_json");
}

TEST(ParseGoldenCasesTest, RefusesWhatItDoesNotUnderstand) {
  for (const char* bad : {"x.txt a.db stdout\n", "x.txt a.db sometimes nimble-prof info a.db\n",
                          "x.txt a.db stdout ls a.db\n", "x.txt a.db stdout nimble-prof info a.db ;\n",
                          "x.txt a.db stdout stored-results\n", "../x.txt a.db stdout nimble-prof info a.db\n",
                          "x.txt a.db stdout nimble-prof info a.db\nx.txt b.db stdout nimble-prof info b.db\n"}) {
    const auto cases = ParseGoldenCases(bad);
    EXPECT_FALSE(cases.ok()) << bad;
  }
  const auto cases = ParseGoldenCases("ok.txt a.db stdout nimble-prof info a.db\nbad line\n");
  ASSERT_FALSE(cases.ok());
  EXPECT_NE(cases.status().message().find("line 2"), std::string::npos) << cases.status().ToString();
}

}  // namespace
}  // namespace nimble::golden
