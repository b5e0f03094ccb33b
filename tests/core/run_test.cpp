// The names of run modes and severities: exactly the strings run databases and model.nimble files
// already hold, and parsing that accepts those and nothing else.
#include "nimble/core/run.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace nimble {
namespace {

TEST(RunModeTest, NamesAreTheStoredStringsAndParseBack) {
  const std::vector<std::pair<RunMode, std::string>> expected = {{RunMode::kProgram, "program"},
                                                                 {RunMode::kEager, "eager"},
                                                                 {RunMode::kAotSingle, "aot-single"},
                                                                 {RunMode::kAotMulti, "aot-multi"}};
  for (const auto& [mode, name] : expected) {
    EXPECT_EQ(RunModeName(mode), name);
    EXPECT_EQ(ParseRunMode(name), mode) << name;
  }
}

TEST(RunModeTest, ParseRefusesAnythingElse) {
  for (const char* name : {"", "Eager", "aot_single", "aot-multi ", "multi", "?"}) {
    EXPECT_EQ(ParseRunMode(name), std::nullopt) << '"' << name << '"';
  }
}

TEST(SeverityTest, NamesAreTheStoredStringsAndParseBack) {
  const std::vector<std::pair<Severity, std::string>> expected = {
      {Severity::kInfo, "info"}, {Severity::kWarning, "warning"}, {Severity::kError, "error"}};
  for (const auto& [severity, name] : expected) {
    EXPECT_EQ(SeverityName(severity), name);
    EXPECT_EQ(ParseSeverity(name), severity) << name;
  }
  EXPECT_LT(Severity::kInfo, Severity::kWarning);
  EXPECT_LT(Severity::kWarning, Severity::kError);
}

TEST(SeverityTest, ParseRefusesAnythingElse) {
  for (const char* name : {"", "Info", "warn", "fatal", "error\n"}) {
    EXPECT_EQ(ParseSeverity(name), std::nullopt) << '"' << name << '"';
  }
}

}  // namespace
}  // namespace nimble
