// How nimble-prof's subcommands plug into the CLI11 app: each subcommand file defines one
// Register*Command function that adds its options and sets the action to run when chosen.
// Exit codes: 0 success, 1 failure at run time (bad data, GPU errors), 2 bad usage.
#pragma once

#include <functional>
#include <string>

#include <CLI/CLI.hpp>

#include "nimble/core/status.h"

namespace nimble::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

// The action of the chosen subcommand; set by its Register function's callback.
using Action = std::function<int()>;

// Prints "nimble-prof: error: <message>" to stderr and returns the exit code for the status
// (kExitUsage for InvalidArgument, kExitFailure otherwise).
int ReportError(const Status& status);

// Prints "<tool>: error: <message>" to stderr; returns kExitFailure (nimble-accelerate, nimble-run).
int PrintError(const std::string& tool, const Status& status);

}  // namespace nimble::cli
