// Finds the NVTX range that marks iterations when none is named: among texts whose ranges never overlap
// one another and occur at least twice, the most frequent (ties: the larger total time, then the
// smaller text id). Fit-to-iteration and compare-mode alignment use its windows. Pure function.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "nimble/core/ids.h"

namespace nimble::gui {

struct TextRange {
  StringId text;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

struct IterationRanges {
  StringId text;                              // invalid when no text qualifies
  std::vector<std::pair<int64_t, int64_t>> windows;  // [start_ns, end_ns) by start
};

IterationRanges DetectIterations(std::span<const TextRange> ranges);

}  // namespace nimble::gui
