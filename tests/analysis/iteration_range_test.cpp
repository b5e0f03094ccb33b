// DetectIterationRange against a brute-force rule on random small traces: "ProfilerStep" (torch.profiler's
// step marker) whenever it occurs twice without overlap, else the most repeated non-overlapping text
// (ties: the larger total time), else nothing.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "nimble/analysis/timeline.h"

namespace nimble::analysis {
namespace {

struct Range {
  std::string text;
  int64_t start_ns, end_ns;
};

Trace TraceOf(const std::vector<Range>& ranges) {
  Trace t;
  for (const Range& r : ranges) {
    NvtxRange n;
    n.text = t.strings.Intern(r.text), n.start_ns = r.start_ns, n.end_ns = r.end_ns;
    t.ranges.push_back(n);
  }
  return t;
}

// Every text that may be returned (several on exact ties).
std::set<std::string> BruteForce(const std::vector<Range>& ranges) {
  std::map<std::string, std::vector<Range>> by_text;
  for (const Range& r : ranges) {
    if (r.end_ns > r.start_ns) by_text[r.text].push_back(r);
  }
  std::map<std::string, std::pair<size_t, int64_t>> candidates;  // count, total time
  for (const auto& [text, list] : by_text) {
    bool overlap = false;
    int64_t total = 0;
    for (size_t i = 0; i < list.size(); ++i) {
      total += list[i].end_ns - list[i].start_ns;
      for (size_t j = 0; j < i; ++j) {
        overlap |= list[i].start_ns < list[j].end_ns && list[j].start_ns < list[i].end_ns;
      }
    }
    if (!overlap && list.size() >= 2) candidates[text] = {list.size(), total};
  }
  if (candidates.contains("ProfilerStep")) return {"ProfilerStep"};
  if (candidates.empty()) return {""};
  std::pair<size_t, int64_t> best{0, 0};
  for (const auto& [text, key] : candidates) best = std::max(best, key);
  std::set<std::string> out;
  for (const auto& [text, key] : candidates) {
    if (key == best) out.insert(text);
  }
  return out;
}

TEST(IterationRangeTest, ProfilerStepWinsOverMoreRepeatedOps) {
  const std::vector<Range> ranges = {{"ProfilerStep", 0, 100},   {"ProfilerStep", 100, 200}, {"aten::empty", 1, 2},
                                     {"aten::empty", 3, 4},      {"aten::empty", 101, 102},  {"aten::empty", 150, 151}};
  EXPECT_EQ(DetectIterationRange(TraceOf(ranges)), "ProfilerStep");
  // Overlapping steps, or a single one, mark no iterations: the usual rule applies.
  EXPECT_EQ(DetectIterationRange(TraceOf({{"ProfilerStep", 0, 100}, {"ProfilerStep", 50, 150}, {"x", 0, 1}, {"x", 2, 3}})), "x");
  EXPECT_EQ(DetectIterationRange(TraceOf({{"ProfilerStep", 0, 100}, {"x", 0, 1}, {"x", 2, 3}})), "x");
}

TEST(IterationRangeTest, MatchesBruteForceOnRandomTraces) {
  const char* texts[] = {"ProfilerStep", "aten::mm", "aten::empty", "forward", "iteration"};
  std::mt19937 rng(5);
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<Range> ranges;
    for (int i = 0, n = static_cast<int>(rng() % 14); i < n; ++i) {
      const int64_t start = rng() % 100;
      ranges.push_back({texts[rng() % 5], start, start + static_cast<int64_t>(rng() % 15)});
    }
    const std::set<std::string> allowed = BruteForce(ranges);
    const std::string got = DetectIterationRange(TraceOf(ranges));
    EXPECT_TRUE(allowed.contains(got)) << "trial " << trial << ": got '" << got << "', expected '" << *allowed.begin() << "'";
  }
}

}  // namespace
}  // namespace nimble::analysis
