// Shared by nimble-accelerate and nimble-run: parsing "--input 1x3x224x224" (one per model input),
// the exit codes, and error printing with the tool's own name. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nimble/core/status.h"

namespace nimble::cli {

inline constexpr int kAotExitOk = 0;
inline constexpr int kAotExitFailure = 1;  // run-time failure: bad model, no GPU, wrong outputs
inline constexpr int kAotExitUsage = 2;    // bad command line

// "1x3x224x224" -> {1, 3, 224, 224}; InvalidArgument naming the text otherwise.
StatusOr<std::vector<int64_t>> ParseShape(const std::string& text);
StatusOr<std::vector<std::vector<int64_t>>> ParseShapes(const std::vector<std::string>& texts);

// Prints "<tool>: error: <message>" to stderr; returns kAotExitFailure.
int PrintError(const std::string& tool, const Status& status);

}  // namespace nimble::cli
