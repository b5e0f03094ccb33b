#include "nimble/core/run.h"

namespace nimble {

const char* RunModeName(RunMode mode) {
  switch (mode) {
    case RunMode::kProgram: return "program";
    case RunMode::kEager: return "eager";
    case RunMode::kAotSingle: return "aot-single";
    case RunMode::kAotMulti: return "aot-multi";
  }
  return "?";
}

std::optional<RunMode> ParseRunMode(std::string_view name) {
  for (RunMode mode : {RunMode::kProgram, RunMode::kEager, RunMode::kAotSingle, RunMode::kAotMulti}) {
    if (name == RunModeName(mode)) return mode;
  }
  return std::nullopt;
}

const char* SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kInfo: return "info";
    case Severity::kWarning: return "warning";
    case Severity::kError: return "error";
  }
  return "?";
}

std::optional<Severity> ParseSeverity(std::string_view name) {
  for (Severity severity : {Severity::kInfo, Severity::kWarning, Severity::kError}) {
    if (name == SeverityName(severity)) return severity;
  }
  return std::nullopt;
}

}  // namespace nimble
