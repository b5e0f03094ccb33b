// What the details pane says about one item: a title and labelled fields (times relative to the run's
// first iteration, duration, stream or thread, op with its kind, shapes, measured and assigned stream
// and place on the critical path, the API call that launched it...). Plain text, no Qt, so the pane
// is a thin view and the wording is tested. Pure functions of the loaded run.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "nimble/core/activity.h"
#include "nimble/gui/loaded_run.h"

namespace nimble::gui {

struct ItemLocation {
  int32_t run = -1;
  int32_t lane = -1;
  int32_t row = -1;
  int64_t item = -1;
  bool valid() const { return run >= 0 && lane >= 0 && row >= 0 && item >= 0; }
  friend bool operator==(const ItemLocation&, const ItemLocation&) = default;
};

struct ItemDescription {
  std::string title;
  std::string kind;  // "Kernel", "Memory copy", "CUDA API call", "NVTX range", "Idle gap", ...
  std::vector<std::pair<std::string, std::string>> fields;
};

// `location.run` is not used (the run is given); lane, row and item must exist in it.
ItemDescription DescribeItem(const LoadedRun& run, const ItemLocation& location);

// Fields only a full kernel record has (grid, block, registers, shared memory, graph node), for the
// pane to add once they have been read from the database.
std::vector<std::pair<std::string, std::string>> DescribeKernelRecord(const KernelRecord& kernel,
                                                                      const StringTable& strings);

// The op a kernel item belongs to, or -1.
int32_t OpOfItem(const RunTimeline& timeline, ItemRef ref);

}  // namespace nimble::gui
