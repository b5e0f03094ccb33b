#include "nimble/collector/marker_pairer.h"

namespace nimble::collector {

void MarkerPairer::Start(uint32_t marker_id, int64_t start_ns, ThreadId thread, StringId text, StringId domain) {
  NvtxRange range;
  range.start_ns = start_ns;
  range.end_ns = start_ns;
  range.thread = thread;
  range.text = text;
  range.domain = domain;
  auto [it, inserted] = open_.try_emplace(marker_id, range);
  if (!inserted) {
    ++unmatched_starts_;  // the earlier start's end never came
    it->second = range;
  }
}

std::optional<NvtxRange> MarkerPairer::End(uint32_t marker_id, int64_t end_ns) {
  auto it = open_.find(marker_id);
  if (it == open_.end()) {
    ++unmatched_ends_;
    return std::nullopt;
  }
  if (end_ns < it->second.start_ns) {  // a clock glitch: neither half can be trusted
    open_.erase(it);
    ++unmatched_ends_;
    return std::nullopt;
  }
  NvtxRange range = it->second;
  range.end_ns = end_ns;
  open_.erase(it);
  return range;
}

int64_t MarkerPairer::CloseOpen() {
  const auto n = static_cast<int64_t>(open_.size());
  unmatched_starts_ += n;
  open_.clear();
  return n;
}

}  // namespace nimble::collector
