// Search by name: the items of a run whose label (kernel, API function or NVTX text) contains a text,
// case-insensitively. Names are matched once per distinct string, then rows are scanned by label id,
// so a search over 10 million kernels is one pass over their label array. Pure function; call it off
// the UI thread for large runs.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "nimble/gui/run_timeline.h"

namespace nimble::gui {

struct SearchHit {
  int32_t lane = -1;
  int32_t row = -1;
  int64_t item = -1;
  int64_t start_ns = 0;  // relative
  int64_t end_ns = 0;
  int32_t label = -1;
};

struct SearchResult {
  std::vector<SearchHit> hits;  // the earliest `limit` matches, by start
  int64_t total = 0;            // all matches
  int32_t names = 0;            // distinct names that matched
};

SearchResult SearchItems(const RunTimeline& timeline, std::string_view text, size_t limit);

}  // namespace nimble::gui
