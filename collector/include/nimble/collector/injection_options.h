// The injection library's settings, read from the environment `nimble-prof record` prepares
// (names in injection_env.h). Parsing is a pure function of an environment lookup, so it is tested
// without a process to inject into. No threading concerns.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "nimble/collector/cupti_session.h"
#include "nimble/core/status.h"

namespace nimble::collector {

struct InjectionOptions {
  std::string output_path;
  SessionOptions session;
  int64_t target_pid = 0;  // 0: record in any process that loads the library
  bool simulate_cupti_failure = false;
};

// Returns the value of an environment variable, or nullptr when unset.
using EnvLookup = std::function<const char*(const char* name)>;

// InvalidArgument naming the variable when a value is malformed or NIMBLE_OUTPUT is missing.
StatusOr<InjectionOptions> ParseInjectionOptions(const EnvLookup& env);

}  // namespace nimble::collector
