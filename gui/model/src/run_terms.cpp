#include "nimble/gui/run_terms.h"

namespace nimble::gui {

StatLevel LevelOf(const StatEntry& stat) {
  switch (stat.severity) {
    case Severity::kError: return StatLevel::kError;
    case Severity::kWarning: return StatLevel::kWarning;
    case Severity::kInfo: break;
  }
  return StatLevel::kInfo;
}

const char* LevelName(StatLevel level) {
  switch (level) {
    case StatLevel::kError: return "error";
    case StatLevel::kWarning: return "warning";
    case StatLevel::kInfo: break;
  }
  return "info";
}

bool IsDataProblem(const StatEntry& stat) { return stat.value != 0 && LevelOf(stat) != StatLevel::kInfo; }

int ModeRank(RunMode mode) {
  switch (mode) {
    case RunMode::kEager: return 0;
    case RunMode::kAotSingle: return 1;
    case RunMode::kAotMulti: return 2;
    case RunMode::kProgram: break;
  }
  return 3;
}

const char* SubjectLabel(RunMode mode) { return mode == RunMode::kProgram ? "Program" : "Model"; }

}  // namespace nimble::gui
