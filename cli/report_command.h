// `nimble-prof report run.db`: flags over workflow::Report, and its tables or --json on stdout.
#pragma once

#include "command.h"

namespace nimble::cli {

void RegisterReportCommand(CLI::App& app, Action& action);

}  // namespace nimble::cli
