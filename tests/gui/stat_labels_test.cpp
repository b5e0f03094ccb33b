// Stat keys as people read them: every key the project writes (found by scanning the code that builds
// stats) and every key in the bundled recorded runs has a short human label; unknown keys read as words.
#include "nimble/gui/stat_labels.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "nimble/store/run_reader.h"

namespace nimble::gui {
namespace {

namespace fs = std::filesystem;

// String literals shaped like stat keys ("collector.records.kernel") in the sources that build stats:
// the files of these folders that mention StatEntry or ToStats. File names ("libcupti.so") are not keys.
std::set<std::string> KeysWrittenByTheProject() {
  const std::regex literal(R"re("([a-z][a-z0-9_]*(\.[a-z0-9_]+)+)")re");
  const std::regex file_name(R"re(\.(so|h|cpp|db|json|pt|nimble|[0-9]+)$)re");
  std::set<std::string> keys;
  for (const char* folder : {"collector/src", "analysis/src", "workflow/src", "store/src", "accelerate/src", "cli"}) {
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(NIMBLE_SOURCE_DIR) / folder)) {
      const std::string ext = entry.path().extension().string();
      if (ext != ".cpp" && ext != ".h") continue;
      std::stringstream text;
      text << std::ifstream(entry.path()).rdbuf();
      const std::string source = text.str();
      if (source.find("StatEntry") == std::string::npos && source.find("ToStats") == std::string::npos) continue;
      std::istringstream lines(source);
      for (std::string line; std::getline(lines, line);) {
        if (line.rfind("#include", 0) == 0) continue;
        for (std::sregex_iterator m(line.begin(), line.end(), literal), end; m != end; ++m) {
          if (!std::regex_search((*m)[1].str(), file_name)) keys.insert((*m)[1].str());
        }
      }
    }
  }
  return keys;
}

TEST(StatLabelsTest, EveryKeyTheProjectWritesHasALabel) {
  const std::set<std::string> keys = KeysWrittenByTheProject();
  // The scan must find the writers (collector, attribution, profile): 40 keys and more today.
  ASSERT_GE(keys.size(), 40u);
  EXPECT_TRUE(keys.count("collector.records.kernel"));
  EXPECT_TRUE(keys.count("attribution.unattributed_ns"));
  EXPECT_TRUE(keys.count("profile.tf32_allowed"));
  for (const std::string& key : keys) EXPECT_TRUE(LabelStat(key).known) << key << " has no label in stat_labels.cpp";
}

TEST(StatLabelsTest, TheBundledRecordedRunsHaveLabelsForEveryStat) {
  for (const char* name : {"inception_v3.db", "concurrent_streams.db"}) {
    auto reader = store::RunReader::Open(std::string(NIMBLE_SOURCE_DIR) + "/samples/recorded/" + name);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    auto stats = (*reader)->LoadStats(RunId(1));
    ASSERT_TRUE(stats.ok()) << stats.status().ToString();
    ASSERT_FALSE(stats->empty()) << name;
    for (const StatEntry& s : *stats) EXPECT_TRUE(LabelStat(s.name).known) << name << ": " << s.name;
  }
}

TEST(StatLabelsTest, LabelsAreShortWords) {
  std::set<std::string_view> labels;
  for (const StatLabelEntry& e : KnownStatLabels()) {
    SCOPED_TRACE(std::string(e.key));
    EXPECT_LE(e.label.size(), 34u) << "too long for one line of the details dock";
    EXPECT_EQ(e.label.find_first_of("._"), std::string_view::npos);
    EXPECT_TRUE(labels.insert(e.label).second) << "two keys share the label " << e.label;
  }
}

TEST(StatLabelsTest, UnknownKeysReadAsWords) {
  const StatLabel label = LabelStat("profile.recorded_every_api_call_v2");
  EXPECT_FALSE(label.known);
  EXPECT_EQ(label.label, "Profile: recorded every api call v2");
  EXPECT_EQ(LabelStat("collector.records.texture_fetch").label, "Collector: records texture fetch");
  EXPECT_EQ(LabelStat("loose_count").label, "Loose count");
  EXPECT_EQ(LabelStat("__weird__.__key").label, "Weird: key");
  EXPECT_EQ(LabelStat("").label, "(unnamed stat)");
  EXPECT_EQ(LabelStat("collector.records.kernel").label, "Kernel records");
}

TEST(StatLabelsTest, ValuesAreShownInTheirUnit) {
  EXPECT_EQ(FormatStatValue(0, StatUnit::kCount), "0");
  EXPECT_EQ(FormatStatValue(999, StatUnit::kCount), "999");
  EXPECT_EQ(FormatStatValue(30140, StatUnit::kCount), "30\u202f140");
  EXPECT_EQ(FormatStatValue(-1234567, StatUnit::kCount), "-1\u202f234\u202f567");
  EXPECT_EQ(FormatStatValue(14435006, StatUnit::kNanoseconds), "14.4 ms");
  EXPECT_EQ(FormatStatValue(512, StatUnit::kBytes), "512 B");
  EXPECT_EQ(FormatStatValue(2651840, StatUnit::kBytes), "2.53 MiB");
  EXPECT_EQ(FormatStatValue(1, StatUnit::kFlag), "yes");
  EXPECT_EQ(FormatStatValue(0, StatUnit::kFlag), "no");
  EXPECT_EQ(FormatStatValue(0, StatUnit::kSignal), "its own exit");
  EXPECT_EQ(FormatStatValue(11, StatUnit::kSignal), "signal 11");
  EXPECT_EQ(LabelStat("attribution.kernel_ns").unit, StatUnit::kNanoseconds);
  EXPECT_EQ(LabelStat("collector.buffer_bytes").unit, StatUnit::kBytes);
}

}  // namespace
}  // namespace nimble::gui
