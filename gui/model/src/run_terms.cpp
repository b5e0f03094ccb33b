#include "nimble/gui/run_terms.h"

namespace nimble::gui {

StatLevel LevelOf(const StatEntry& stat) {
  if (stat.severity == "error") return StatLevel::kError;
  if (stat.severity == "warning") return StatLevel::kWarning;
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

int ModeRank(const std::string& mode) {
  if (mode == "eager") return 0;
  if (mode == "aot-single") return 1;
  if (mode == "aot-multi") return 2;
  return 3;
}

const char* SubjectLabel(const std::string& mode) { return mode == "program" ? "Program" : "Model"; }

}  // namespace nimble::gui
