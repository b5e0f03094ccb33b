// Regex masking of the text report and key-based masking of the JSON report.
#include "report_mask.h"

#include <regex>

namespace nimble::golden {
namespace {

using nlohmann::json;

// "ratio" as a word of the key: "iterations" and "iteration_range" hold the letters too.
bool IsTimingKey(const std::string& key) {
  const bool ratio = key == "ratio" || key.ends_with("_ratio") || key.starts_with("ratio_");
  return ratio || key.ends_with("_ns") || key.starts_with("speedup") || key.ends_with("share") || key == "gaps";
}

// median_iteration: which iteration is the median depends on the timings of a fresh recording; so do
// the segments of the host/GPU critical path (which edge binds, and the host's thread ids).
bool IsRecordingKey(const std::string& key) {
  return key == "stream" || key == "next_stream" || key == "longest_gaps" || key == "median_iteration" ||
         key == "segments";
}

// A copy of `j` where the value of every key that `masked` picks is kMasked.
template <typename Pick>
json MaskKeys(const json& j, const Pick& masked) {
  if (j.is_array()) {
    json out = json::array();
    for (const json& item : j) out.push_back(MaskKeys(item, masked));
    return out;
  }
  if (!j.is_object()) return j;
  json out = json::object();
  for (const auto& [key, value] : j.items()) out[key] = masked(key) ? json(std::string(kMasked)) : MaskKeys(value, masked);
  return out;
}

}  // namespace

std::string MaskTextTimings(std::string_view report) {
  static const std::regex kDuration(R"(-?\d+(\.\d+)? (ns|us|ms|s)\b)");
  static const std::regex kPercent(R"(-?\d+(\.\d+)?%)");
  static const std::regex kFactor(R"(\b\d+\.\d+x\b)");
  static const std::regex kAroundPlaceholder(R"( *(<dur>|<pct>|<x>) *)");
  static const std::regex kPadding(R"(  +)");
  static const std::regex kTrailing(R"( +$)");
  std::string out;
  size_t begin = 0;
  while (begin < report.size()) {
    const size_t end = std::min(report.find('\n', begin), report.size());
    std::string line(report.substr(begin, end - begin));
    line = std::regex_replace(line, kDuration, "<dur>");
    line = std::regex_replace(line, kPercent, "<pct>");
    line = std::regex_replace(line, kFactor, "<x>");
    line = std::regex_replace(line, kAroundPlaceholder, "  $1  ");
    line = std::regex_replace(line, kPadding, "  ");
    out += std::regex_replace(line, kTrailing, "");
    if (end < report.size()) out += "\n";
    begin = end + 1;
  }
  return out;
}

json MaskJsonTimings(const json& report) { return MaskKeys(report, IsTimingKey); }

json MaskRecordingDetails(const json& report) {
  json out = MaskKeys(report, IsRecordingKey);
  if (out.contains("runs") && out["runs"].is_array()) {
    for (json& run : out["runs"]) {
      if (!run.contains("run") || !run["run"].is_object()) continue;
      for (const char* key : {"device", "model"}) {
        if (run["run"].contains(key)) run["run"][key] = std::string(kMasked);
      }
    }
  }
  return out;
}

std::string MaskedReportJson(const json& report) {
  return MaskRecordingDetails(MaskJsonTimings(report)).dump(2) + "\n";
}

}  // namespace nimble::golden
