// The one place the viewer turns the run vocabulary (core's RunMode and Severity) into what it shows:
// levels of stats, the display order of modes, what a run's model names. Pure functions.
#pragma once

#include <string>

#include "nimble/core/run.h"

namespace nimble::gui {

enum class StatLevel { kInfo, kWarning, kError };

// The stat's severity as a display level.
StatLevel LevelOf(const StatEntry& stat);
// "info", "warning", "error": the word shown next to a stat.
const char* LevelName(StatLevel level);
// A warning or error with a non-zero count: a problem with the data, shown apart from plain counts.
bool IsDataProblem(const StatEntry& stat);

// Display order of execution modes: eager, aot-single, aot-multi, then any other.
int ModeRank(RunMode mode);
// What RunInfo::model names in a run of this mode: "Program" for a recorded program, else "Model".
const char* SubjectLabel(RunMode mode);

}  // namespace nimble::gui
