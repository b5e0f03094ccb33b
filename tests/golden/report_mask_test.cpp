// Masking of timings in reports: every duration, percentage and factor goes, every count, name and
// section stays, and two reports that differ only in timing mask to the same text.
#include <gtest/gtest.h>

#include <regex>

#include "golden_files.h"
#include "report_mask.h"

namespace nimble::golden {
namespace {

using nlohmann::json;

TEST(MaskTextTimingsTest, MasksEveryDurationUnitPercentageAndFactor) {
  EXPECT_EQ(MaskTextTimings("a 1.44 ms b 616 us c 950 ns d 1.23 s e -2.50 ms"),
            "a  <dur>  b  <dur>  c  <dur>  d  <dur>  e  <dur>");
  EXPECT_EQ(MaskTextTimings("active ratio 89.4% 100.0% -3.0%"), "active ratio  <pct>  <pct>  <pct>");
  EXPECT_EQ(MaskTextTimings("measured 1.00x eager 12.34x"), "measured  <x>  eager  <x>");
}

TEST(MaskTextTimingsTest, KeepsCountsNamesAndShapes) {
  const std::string text =
      "run 1 (eager): model.pt --input 1x3x299x299 on GPU\n"
      "iterations: 10 windows of NVTX range 'iteration'\n"
      "  kernels 3330 333\n  streams used 4\n  13 11\n  stream 7, correlation 36189\n";
  EXPECT_EQ(MaskTextTimings(text), text);
}

TEST(MaskTextTimingsTest, PaddingDoesNotDependOnWhatWasMasked) {
  const std::string a = "  span                                 2.81 ms              248 us\n"
                        "  synchronization                       298 us    100.0%      10\n";
  const std::string b = "  span                                 12.8 ms             2.48 s\n"
                        "  synchronization                      -1.00 ns      5.0%      10\n";
  EXPECT_EQ(MaskTextTimings(a), MaskTextTimings(b));
  EXPECT_EQ(MaskTextTimings(a), "  span  <dur>  <dur>\n  synchronization  <dur>  <pct>  10\n");
}

// On a real report: every figure that carries a unit is gone, the counts are all still there.
TEST(MaskTextTimingsTest, RealReportKeepsItsCounts) {
  const std::string report = ReadFile(ExpectedDir() / "report_concurrent_streams.txt");
  ASSERT_FALSE(report.empty());
  const std::string masked = MaskTextTimings(report);
  static const std::regex kFigure(R"(\d (ns|us|ms|s)\b|\d%|\dx\b)");
  EXPECT_FALSE(std::regex_search(masked, kFigure)) << masked;
  for (const char* kept : {"  kernels  44  4\n", "  streams used  4  4\n", "  synchronization  <dur>  <pct>  10\n",
                           "iterations: 10 windows of NVTX range 'iteration'", "  13  <dur>  <pct>  11\n"}) {
    EXPECT_NE(masked.find(kept), std::string::npos) << kept << "\nin:\n" << masked;
  }
}

TEST(MaskJsonTimingsTest, MasksTimingKeysAtAnyDepthAndKeepsCounts) {
  const json report = {
      {"runs",
       {{{"run", {{"id", 1}, {"iterations", 10}}}, {"iteration_range", "iteration"},
         {"devices",
          {{{"run",
             {{"start_ns", 5}, {"active_ns", 7}, {"active_ratio", 0.5}, {"kernels", 44},
              {"idle_by_cause", {{"synchronization", {{"idle_ns", 3}, {"gaps", 10}}}}},
              {"streams", {{{"stream", 13}, {"busy_ns", 2}, {"kernels", 11}, {"share", 0.7}}}}}}}}},
         {"graph", {{"width", 6}, {"critical_path", {{"length_ns", 9}, {"ratio_to_active", 0.5}, {"ops", {1, 2}}}}}},
         {"prediction", {{"speedup_aot_multi", 5.2}, {"launch_gap_ns", {{"nested", 1}}}}}}}}};
  const json m = MaskJsonTimings(report);
  const json& run = m["runs"][0]["devices"][0]["run"];
  EXPECT_EQ(run["start_ns"], kMasked);
  EXPECT_EQ(run["active_ns"], kMasked);
  EXPECT_EQ(run["active_ratio"], kMasked);
  EXPECT_EQ(run["kernels"], 44);
  EXPECT_EQ(run["idle_by_cause"]["synchronization"], json({{"idle_ns", kMasked}, {"gaps", kMasked}}));
  EXPECT_EQ(run["streams"][0], json({{"stream", 13}, {"busy_ns", kMasked}, {"kernels", 11}, {"share", kMasked}}));
  EXPECT_EQ(m["runs"][0]["graph"]["width"], 6);
  EXPECT_EQ(m["runs"][0]["graph"]["critical_path"]["ratio_to_active"], kMasked);
  EXPECT_EQ(m["runs"][0]["graph"]["critical_path"]["ops"], json({1, 2}));
  EXPECT_EQ(m["runs"][0]["prediction"]["speedup_aot_multi"], kMasked);
  EXPECT_EQ(m["runs"][0]["prediction"]["launch_gap_ns"], kMasked);
  EXPECT_EQ(m["runs"][0]["run"], report["runs"][0]["run"]);
  EXPECT_EQ(m["runs"][0]["iteration_range"], "iteration");
}

TEST(MaskRecordingDetailsTest, MasksDeviceProgramStreamIdsAndLongestGaps) {
  const json report = {{"database", "concurrent_streams.db"},
                       {"runs",
                        {{{"run", {{"device", "NVIDIA H100"}, {"model", "/abs/concurrent_streams"}, {"iterations", 10}}},
                          {"devices",
                           {{{"device", 0},
                             {"longest_gaps", {{{"next_stream", 13}, {"next_correlation", 157}}}},
                             {"run", {{"streams", {{{"stream", 13}, {"kernels", 11}}}}}}}}}}}}};
  const json m = MaskRecordingDetails(report);
  EXPECT_EQ(m["database"], "concurrent_streams.db");
  EXPECT_EQ(m["runs"][0]["run"], json({{"device", kMasked}, {"model", kMasked}, {"iterations", 10}}));
  EXPECT_EQ(m["runs"][0]["devices"][0]["device"], 0);
  EXPECT_EQ(m["runs"][0]["devices"][0]["longest_gaps"], kMasked);
  EXPECT_EQ(m["runs"][0]["devices"][0]["run"]["streams"][0], json({{"stream", kMasked}, {"kernels", 11}}));
}

TEST(MaskedReportJsonTest, TwoRecordingsThatDifferOnlyInTimingMaskAlike) {
  const auto recording = [](int64_t active_ns, int64_t stream, const char* device) {
    return json{{"runs", {{{"run", {{"device", device}, {"iterations", 10}}},
                           {"devices", {{{"run", {{"active_ns", active_ns}, {"kernels", 44},
                                                  {"streams", {{{"stream", stream}, {"kernels", 11}}}}}}}}}}}}};
  };
  EXPECT_EQ(MaskedReportJson(recording(2512396, 13, "NVIDIA H100 80GB HBM3")),
            MaskedReportJson(recording(2498000, 21, "NVIDIA H200")));
  json fewer = recording(2512396, 13, "NVIDIA H100 80GB HBM3");
  fewer["runs"][0]["devices"][0]["run"]["kernels"] = 43;
  EXPECT_NE(MaskedReportJson(recording(2512396, 13, "NVIDIA H100 80GB HBM3")), MaskedReportJson(fewer));
}

}  // namespace
}  // namespace nimble::golden
