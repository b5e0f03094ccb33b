// `nimble-prof upgrade run.db`: brings a run database of an older schema to this build's, in place
// (all migrations in one transaction). The one command that changes a file's schema: reading never does.
#pragma once

#include "command.h"

namespace nimble::cli {

void RegisterUpgradeCommand(CLI::App& app, Action& action);

}  // namespace nimble::cli
