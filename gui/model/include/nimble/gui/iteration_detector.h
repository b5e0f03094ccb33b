// Finds the NVTX range that marks iterations when none is named: among texts whose ranges never overlap
// one another and occur at least twice, the most frequent (ties: the larger total time, then the
// smaller text id). Fit-to-iteration and compare-mode alignment use its windows; the viewer opens on the
// median one. Pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <string>
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

// The window of median length (the upper median, as core/median.h; the earliest of equal lengths): a
// typical iteration, neither the warm first one nor an outlier. -1 when there are no windows.
int MedianIteration(std::span<const std::pair<int64_t, int64_t>> windows);

// The 0-based window to show for a 1-based request `k` among `count`: out of range it is clamped, with a
// warning that names the count; with no windows, index -1 and a warning that says so.
struct IterationPick {
  int index = -1;
  std::string warning;  // "" when `k` was in range
};
IterationPick PickIteration(int k, size_t count);

}  // namespace nimble::gui
