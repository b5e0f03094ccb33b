#include "nimble/gui/item_search.h"

#include <algorithm>
#include <cctype>

namespace nimble::gui {
namespace {

bool ContainsIgnoringCase(std::string_view haystack, std::string_view needle) {
  const auto it = std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  });
  return it != haystack.end();
}

}  // namespace

SearchResult SearchItems(const RunTimeline& timeline, std::string_view text, size_t limit) {
  SearchResult out;
  if (text.empty()) return out;
  const std::vector<std::string>& strings = timeline.strings.strings();
  std::vector<uint8_t> matches(strings.size(), 0);
  for (size_t i = 0; i < strings.size(); ++i) {
    if (ContainsIgnoringCase(strings[i], text)) {
      matches[i] = 1;
      ++out.names;
    }
  }
  if (out.names == 0) return out;
  for (size_t l = 0; l < timeline.lanes.size(); ++l) {
    const Lane& lane = timeline.lanes[l];
    if (lane.kind == LaneKind::kDeviceIdle) continue;  // gap labels are causes, not names
    for (size_t r = 0; r < lane.rows.size(); ++r) {
      const RowItems& row = lane.rows[r];
      size_t kept = 0;  // rows are sorted, so a row's first `limit` matches are all it can contribute
      for (size_t i = 0; i < row.size(); ++i) {
        const int32_t label = row.label(i);
        if (label < 0 || static_cast<size_t>(label) >= matches.size() || !matches[static_cast<size_t>(label)]) continue;
        ++out.total;
        if (kept++ < limit) {
          out.hits.push_back({static_cast<int32_t>(l), static_cast<int32_t>(r), static_cast<int64_t>(i),
                              row.start_ns(i), row.end_ns(i), label});
        }
      }
    }
  }
  std::sort(out.hits.begin(), out.hits.end(),
            [](const SearchHit& a, const SearchHit& b) { return a.start_ns < b.start_ns; });
  if (out.hits.size() > limit) out.hits.resize(limit);
  return out;
}

}  // namespace nimble::gui
