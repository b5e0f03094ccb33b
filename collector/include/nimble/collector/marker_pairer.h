// Pairs CUPTI's NVTX marker records into NvtxRanges: a START and its END share a marker id (push/pop
// and start/end alike); an INSTANTANEOUS marker is a range of zero length. Ends whose start was not
// seen (capture began inside the range) and starts never ended are counted, not guessed.
// Not thread-safe: owned by one converter.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>

#include "nimble/core/activity.h"

namespace nimble::collector {

class MarkerPairer {
 public:
  // A range begins (START flag). A second start with an id still open replaces it; counted as unmatched.
  void Start(uint32_t marker_id, int64_t start_ns, ThreadId thread, StringId text, StringId domain);
  // A range ends: returns it, or nothing (and counts) when its start was never seen.
  std::optional<NvtxRange> End(uint32_t marker_id, int64_t end_ns);

  // Starts still open; call at the end of a session to count them as unmatched.
  int64_t CloseOpen();

  int64_t unmatched_ends() const { return unmatched_ends_; }
  int64_t unmatched_starts() const { return unmatched_starts_; }
  size_t open() const { return open_.size(); }

 private:
  std::unordered_map<uint32_t, NvtxRange> open_;
  int64_t unmatched_ends_ = 0;
  int64_t unmatched_starts_ = 0;
};

}  // namespace nimble::collector
