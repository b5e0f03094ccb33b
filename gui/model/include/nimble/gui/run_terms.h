// The one place the viewer reads the run vocabulary that core still spells as strings (execution modes,
// stat severities), so that turning those into enums changes this file and nothing else in the viewer.
// Pure functions.
#pragma once

#include <string>

#include "nimble/core/run.h"

namespace nimble::gui {

enum class StatLevel { kInfo, kWarning, kError };

// kInfo for "info" and for anything unknown (an empty severity keeps the stored one).
StatLevel LevelOf(const StatEntry& stat);
// "info", "warning", "error": the word shown next to a stat.
const char* LevelName(StatLevel level);
// A warning or error with a non-zero count: a problem with the data, shown apart from plain counts.
bool IsDataProblem(const StatEntry& stat);

// Display order of execution modes: eager, aot-single, aot-multi, then any other.
int ModeRank(const std::string& mode);
// What RunInfo::model names in a run of this mode: "Program" for a recorded program, else "Model".
const char* SubjectLabel(const std::string& mode);

}  // namespace nimble::gui
