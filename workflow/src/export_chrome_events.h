// Writes one laid-out run as Chrome trace events: metadata naming its processes and threads, one
// complete ("X") event per span with the categories and args torch.profiler (Kineto) uses for GPU work and
// CUDA calls, and arrows (flow "s"/"f" pairs, ids unique in the file) from each launching API call to its
// GPU work and along the planned cross-stream dependencies. One thread.
#pragma once

#include <cstdint>
#include <string>

#include "export_chrome_json.h"
#include "export_chrome_layout.h"
#include "export_chrome_timeline.h"
#include "nimble/workflow/export_chrome.h"
#include "nimble/workflow/report.h"

namespace nimble::workflow {

struct ChromeRunContext {
  const Trace* trace = nullptr;
  const RunReport* report = nullptr;
  const RunTimeline* timeline = nullptr;
  const TimelineLayout* layout = nullptr;
  std::string name_prefix;         // "Run 2 · " when several runs share the file
  int64_t process_sort_base = 0;   // processes of this run sort after those of earlier runs
};

Status WriteRunMetadata(const ChromeRunContext& run, ChromeJsonWriter& out);
Status WriteRunSpans(const ChromeRunContext& run, ChromeJsonWriter& out, ChromeRunSummary& summary);
// `next_flow_id` is the first free flow id of the file; it is advanced past the ids used.
Status WriteRunFlows(const ChromeRunContext& run, ChromeJsonWriter& out, int64_t& next_flow_id,
                     ChromeRunSummary& summary);

}  // namespace nimble::workflow
