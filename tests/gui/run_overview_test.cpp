// The Summary tab's words on the known model run: the run, GPU time by cause, the op graph, data
// problems apart from plain counts, and stats under their human labels, never their raw keys.
#include "nimble/gui/run_overview.h"

#include <gtest/gtest.h>

#include "model_run_fixture.h"

namespace nimble::gui {
namespace {

const OverviewSection* Section(const std::vector<OverviewSection>& sections, const std::string& title) {
  for (const OverviewSection& s : sections) {
    if (s.title == title) return &s;
  }
  return nullptr;
}

const OverviewLine* Line(const OverviewSection& section, const std::string& label) {
  for (const OverviewLine& l : section.lines) {
    if (l.label == label) return &l;
  }
  return nullptr;
}

using RunOverviewTest = testing::LoadedModelRunTest;

TEST_F(RunOverviewTest, DescribesTheRunItsGpuTimeAndItsGraph) {
  const auto sections = DescribeRun(run_);
  std::vector<std::string> titles;
  for (const OverviewSection& s : sections) titles.push_back(s.title);
  EXPECT_EQ(titles, (std::vector<std::string>{"Run", "GPU time", "Op graph", "Data problems"}));

  const OverviewSection& r = *Section(sections, "Run");
  EXPECT_EQ(Line(r, "Device")->value, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(Line(r, "Mode")->value, "eager");
  EXPECT_EQ(Line(r, "Model")->value, "samples/models/inception_block.pt");
  EXPECT_EQ(Line(r, "Iterations")->value, "3");
  ASSERT_NE(Line(r, "Median iteration"), nullptr);
  const OverviewSection& gpu = *Section(sections, "GPU time");
  ASSERT_NE(Line(gpu, "GPU 0 active"), nullptr);
  EXPECT_NE(Line(gpu, "GPU 0 idle, synchronization"), nullptr);
  EXPECT_NE(Line(gpu, "GPU 0 idle, host launch late"), nullptr);
  const OverviewSection& graph = *Section(sections, "Op graph");
  EXPECT_EQ(Line(graph, "Ops")->value, "6");
  EXPECT_NE(Line(graph, "Critical path")->note.find("4 ops"), std::string::npos);
  const OverviewSection& problems = *Section(sections, "Data problems");
  ASSERT_EQ(problems.lines.size(), 1u);
  EXPECT_EQ(problems.lines[0].value, "none");
}

TEST_F(RunOverviewTest, ProblemsStandApartAndStatsAreLabelled) {
  run_.stats = {
      {"collector.records.kernel", 3330, Severity::kInfo, "kernel records stored"},
      {"collector.dropped_records", 0, Severity::kInfo, "records CUPTI dropped"},
      {"profile.recorded_every_api_call", 1, Severity::kWarning, "the run was recorded again with every API call"},
      {"attribution.kernel_ns", 14'435'006, Severity::kInfo, "GPU time of all kernels"},
      {"collector.some_new_count", 7, Severity::kInfo, "a key this viewer does not know"},
      {"collector.unmatched_marker_ends", 2, Severity::kError, "NVTX range ends whose start was not captured"},
  };
  const auto sections = DescribeRun(run_);
  const OverviewSection& problems = *Section(sections, "Data problems");
  ASSERT_EQ(problems.lines.size(), 2u);
  EXPECT_EQ(problems.lines[0].label, "warning: Recorded with every API call");
  EXPECT_EQ(problems.lines[0].value, "yes");
  EXPECT_TRUE(problems.lines[0].problem);
  EXPECT_EQ(problems.lines[1].label, "error: NVTX ends without a start");
  const OverviewSection* recording = Section(sections, "Recording");
  ASSERT_NE(recording, nullptr);
  ASSERT_EQ(recording->lines.size(), 4u);
  EXPECT_EQ(recording->lines[0].label, "Kernel records");
  EXPECT_EQ(recording->lines[0].value, "3\u202f330");
  EXPECT_EQ(recording->lines[0].note, "kernel records stored");
  EXPECT_EQ(recording->lines[1].value, "0");  // a loss of nothing is worth saying
  EXPECT_EQ(Line(*recording, "GPU time of all kernels")->value, "14.4 ms");
  EXPECT_NE(Line(*recording, "Collector: some new count"), nullptr);
  for (const OverviewSection& s : sections) {
    for (const OverviewLine& l : s.lines) EXPECT_EQ(l.label.find('_'), std::string::npos) << l.label;
  }
}

TEST_F(RunOverviewTest, SaysWhyARunHasNoGraph) {
  run_.ops.reset();
  run_.graph_problem = "op 3 has no kernels";
  const auto sections = DescribeRun(run_);
  const OverviewLine& line = Section(sections, "Op graph")->lines.at(0);
  EXPECT_EQ(line.value, "not analysed");
  EXPECT_EQ(line.note, "op 3 has no kernels");
  EXPECT_TRUE(line.problem);
  run_.graph_problem.clear();
  EXPECT_EQ(Section(DescribeRun(run_), "Op graph")->lines.at(0).value, "none stored");
}

TEST_F(RunOverviewTest, ARecordedProgramIsCalledOne) {
  run_.info.mode = RunMode::kProgram;
  run_.info.model = "/opt/app/concurrent_streams";
  const auto sections = DescribeRun(run_);
  const OverviewSection& r = *Section(sections, "Run");
  ASSERT_NE(Line(r, "Program"), nullptr);
  EXPECT_EQ(Line(r, "Program")->value, "/opt/app/concurrent_streams");
  EXPECT_EQ(Line(r, "Model"), nullptr);
}

}  // namespace
}  // namespace nimble::gui
