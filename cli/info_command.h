// `nimble-prof info run.db`: the runs in a database and the row count of every table.
#pragma once

#include "command.h"

namespace nimble::cli {

void RegisterInfoCommand(CLI::App& app, Action& action);

}  // namespace nimble::cli
