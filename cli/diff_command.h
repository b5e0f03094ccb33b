// `nimble-prof diff base.db new.db`: flags over workflow::DiffFiles, the diff's tables or --json on
// stdout, and the regression gate of --fail-above (exit 1 when it fails).
#pragma once

#include "command.h"

namespace nimble::cli {

void RegisterDiffCommand(CLI::App& app, Action& action);

}  // namespace nimble::cli
