// What the Summary tab says about a loaded run, as titled sections of labelled lines: the run itself,
// where each GPU's time went, the op graph's critical path and stream plan, the data problems, and every
// other stat of the recording under its human label (stat_labels.h). The details pane says nothing of
// this (it describes the selected item), so the two never repeat each other. Plain text, no Qt, so the
// wording is tested. Pure functions of the loaded run.
#pragma once

#include <string>
#include <vector>

#include "nimble/gui/loaded_run.h"

namespace nimble::gui {

struct OverviewLine {
  std::string label;  // short, never a raw key
  std::string value;
  std::string note;   // longer explanation, shown dimmed ("" when none)
  bool problem = false;
};

struct OverviewSection {
  std::string title;
  std::vector<OverviewLine> lines;
};

// Sections "Run", "GPU time", "Op graph" (with or without a graph), "Critical path (host and GPU)"
// (runs without op analysis: the path's length and split, or why it was not computed), "Data problems"
// (always: "none" is news too) and "Recording" (the other stats, in stored order; absent when none).
std::vector<OverviewSection> DescribeRun(const LoadedRun& run);

}  // namespace nimble::gui
