// Masks what varies from one recording to the next in `nimble-prof report` output, so that a report of
// a run recorded on the GPU today can be compared with one recorded earlier: timings become
// placeholders, structure and the counts that do not depend on timing stay. Pure functions.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace nimble::golden {

// What every masked value becomes: in text `<dur>`, `<pct>` and `<x>`; in JSON this string.
inline constexpr std::string_view kMasked = "<masked>";

// Text report: durations ("1.44 ms", "616 us", "950 ns", "1.23 s", negative too) become `<dur>`,
// percentages `<pct>`, factors ("1.00x") `<x>`. Column padding depends on the width of what was
// masked, so runs of two or more spaces become exactly two, and trailing spaces go.
std::string MaskTextTimings(std::string_view report);

// JSON report: the values of keys that end in "_ns", have "ratio" as a word ("active_ratio",
// "ratio_to_active"), start with "speedup", end in "share", or are "gaps" (how many gaps there are
// follows the timing) become kMasked, at any depth.
// Objects and arrays under such keys are masked as a whole.
nlohmann::json MaskJsonTimings(const nlohmann::json& report);

// What else differs between two recordings of the same program: the device's name and the program's
// path ("run"), CUPTI's stream ids ("stream", "next_stream"), the list of longest gaps (which gaps
// are longest, and so their causes and correlation ids, follows the timing) and the segments of the
// host/GPU critical path (which constraint binds follows the timing too). Applied after
// MaskJsonTimings for GPU golden tests.
nlohmann::json MaskRecordingDetails(const nlohmann::json& report);

// Both maskings, then the JSON as the expected files hold it: indented by 2, ending in a newline.
std::string MaskedReportJson(const nlohmann::json& report);

}  // namespace nimble::golden
