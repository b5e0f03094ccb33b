// docs/schema.md documents the schema this build writes: its stated current version and its version
// history name kSchemaVersion, and every version up to it has a row (the doc once lagged a version).
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "nimble/store/schema.h"

namespace nimble::store {
namespace {

std::string SchemaDoc() {
  std::ifstream in(std::string(NIMBLE_SOURCE_DIR) + "/docs/schema.md");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(SchemaDocTest, CurrentVersionAndHistoryMatchTheCode) {
  const std::string doc = SchemaDoc();
  ASSERT_FALSE(doc.empty()) << "docs/schema.md not found";
  std::smatch current;
  ASSERT_TRUE(std::regex_search(doc, current, std::regex(R"(currently \*\*(\d+)\*\*)")));
  EXPECT_EQ(std::stoi(current[1]), kSchemaVersion) << "docs/schema.md states another current version";
  std::smatch newest;
  ASSERT_TRUE(std::regex_search(doc, newest, std::regex(R"(this build reads up to (\d+))")));
  EXPECT_EQ(std::stoi(newest[1]), kSchemaVersion);
  const size_t history = doc.find("## Version history");
  ASSERT_NE(history, std::string::npos);
  const std::string table = doc.substr(history, doc.find("\n\n", doc.find("| --- |", history)) - history);
  for (int v = 1; v <= kSchemaVersion; ++v) {
    EXPECT_NE(table.find("\n| " + std::to_string(v) + " |"), std::string::npos)
        << "version " << v << " has no row in the version history table (or a blank line splits it)";
  }
  EXPECT_EQ(table.find("\n| " + std::to_string(kSchemaVersion + 1) + " |"), std::string::npos);
}

}  // namespace
}  // namespace nimble::store
