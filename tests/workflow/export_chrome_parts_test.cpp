// The pieces of the Chrome export, against brute force on random small inputs: nesting lanes (every lane
// nests, each span took the first lane it fits, nested input stays in one lane), JSON strings (any bytes
// give valid JSON and UTF-8; valid UTF-8 reads back unchanged) and microsecond times (every nanosecond
// reads back).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "export_chrome_json.h"
#include "export_chrome_lanes.h"

namespace nimble::workflow {
namespace {

bool Cross(const LaneSpan& a, const LaneSpan& b) {  // overlap without either containing the other
  const bool a_in_b = b.start_ns <= a.start_ns && a.end_ns <= b.end_ns;
  const bool b_in_a = a.start_ns <= b.start_ns && b.end_ns <= a.end_ns;
  const bool overlap = a.start_ns < b.end_ns && b.start_ns < a.end_ns;
  return overlap && !a_in_b && !b_in_a;
}

std::vector<LaneSpan> RandomSpans(std::mt19937_64& rng, int n, int64_t horizon) {
  std::uniform_int_distribution<int64_t> at(0, horizon), len(0, horizon / 3);
  std::vector<LaneSpan> spans;
  for (int i = 0; i < n; ++i) {
    const int64_t s = at(rng);
    spans.push_back({s, s + len(rng)});
  }
  std::sort(spans.begin(), spans.end(), ViewerOrder);
  return spans;
}

TEST(NestingLanes, EveryLaneNestsAndEachSpanTookTheFirstLaneItFits) {
  std::mt19937_64 rng(20261124);
  for (int round = 0; round < 2000; ++round) {
    const std::vector<LaneSpan> spans = RandomSpans(rng, 1 + round % 12, 20);
    const std::vector<int32_t> lane = AssignNestingLanes(spans);
    ASSERT_EQ(lane.size(), spans.size());
    const int32_t lanes = *std::max_element(lane.begin(), lane.end()) + 1;
    for (int32_t l = 0; l < lanes; ++l) ASSERT_NE(std::find(lane.begin(), lane.end(), l), lane.end()) << "hole";
    for (size_t i = 0; i < spans.size(); ++i) {
      for (size_t j = 0; j < i; ++j) {
        ASSERT_FALSE(lane[i] == lane[j] && Cross(spans[i], spans[j])) << "round " << round;
      }
      // A span in lane k > 0 crosses an earlier span in every lane below k.
      for (int32_t below = 0; below < lane[i]; ++below) {
        bool blocked = false;
        for (size_t j = 0; j < i; ++j) blocked = blocked || (lane[j] == below && Cross(spans[i], spans[j]));
        ASSERT_TRUE(blocked) << "round " << round << ": span " << i << " skipped lane " << below;
      }
    }
  }
}

// Random laminar families: children cut from their parent's interval, recursively.
void Laminar(std::mt19937_64& rng, int64_t start, int64_t end, int depth, std::vector<LaneSpan>& out) {
  out.push_back({start, end});
  if (depth == 0 || end - start < 2) return;
  std::uniform_int_distribution<int64_t> cut(start, end);
  int64_t a = cut(rng), b = cut(rng);
  if (a > b) std::swap(a, b);
  Laminar(rng, start, a, depth - 1, out);
  Laminar(rng, b, end, depth - 1, out);
}

TEST(NestingLanes, NestedInputStaysInOneLane) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 500; ++round) {
    std::vector<LaneSpan> spans;
    Laminar(rng, 0, 1000, 1 + round % 5, spans);
    std::sort(spans.begin(), spans.end(), ViewerOrder);
    const std::vector<int32_t> lane = AssignNestingLanes(spans);
    ASSERT_TRUE(std::all_of(lane.begin(), lane.end(), [](int32_t l) { return l == 0; })) << "round " << round;
  }
}

TEST(ChromeJson, AnyBytesGiveValidJsonAndValidUtf8ReadsBackUnchanged) {
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<int> byte(0, 255), length(0, 24);
  for (int round = 0; round < 5000; ++round) {
    std::string raw;
    for (int i = length(rng); i > 0; --i) raw.push_back(static_cast<char>(byte(rng)));
    std::string text;
    AppendJsonString(text, raw);
    const nlohmann::json parsed = nlohmann::json::parse(text, nullptr, false);
    ASSERT_TRUE(parsed.is_string()) << "round " << round;
    // Valid UTF-8 must come back as it was; nlohmann's strict dump tells which inputs are valid.
    bool valid = true;
    try {
      (void)nlohmann::json(raw).dump();
    } catch (const nlohmann::json::exception&) {
      valid = false;
    }
    if (valid) {
      ASSERT_EQ(parsed.get<std::string>(), raw) << "round " << round;
    }
    // What comes back is valid UTF-8 in any case.
    EXPECT_NO_THROW((void)parsed.dump());
  }
}

TEST(ChromeJson, ValidMultibyteTextAndEscapesReadBack) {
  const std::string samples[] = {"void k<float>(\"a\\b\")", "tab\tnew\nline\x01", "µs · ∑ 𝔸", ""};
  for (const std::string& s : samples) {
    std::string text;
    AppendJsonString(text, s);
    EXPECT_EQ(nlohmann::json::parse(text).get<std::string>(), s);
  }
  std::string text;
  // An overlong form, a surrogate and a code point past U+10FFFF: none survives.
  AppendJsonString(text, std::string("a\xC0\xAF" "b\xED\xA0\x80" "c\xF4\x90\x80\x80", 12));
  EXPECT_EQ(nlohmann::json::parse(text).get<std::string>().find_first_of("\xC0\xED\xF4"), std::string::npos);
}

TEST(ChromeJson, MicrosKeepEveryNanosecond) {
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<int64_t> small(-(int64_t{1} << 50), int64_t{1} << 50);
  for (int round = 0; round < 20000; ++round) {
    const int64_t ns = small(rng);
    std::string text;
    AppendMicros(text, ns);
    ASSERT_EQ(std::llround(std::stod(text) * 1000.0), ns) << text;  // as a reader parsing doubles sees it
    // And exactly, as text: integer part and three decimals.
    const size_t dot = text.find('.');
    ASSERT_EQ(text.size() - dot, 4u) << text;
    const int64_t whole = std::stoll(text.substr(0, dot)), frac = std::stoll(text.substr(dot + 1));
    ASSERT_EQ(ns, (text[0] == '-' ? -1 : 1) * (std::llabs(whole) * 1000 + frac)) << text;
  }
  std::string edge;
  AppendMicros(edge, INT64_MIN);
  EXPECT_EQ(edge, "-9223372036854775.808");
}

}  // namespace
}  // namespace nimble::workflow
