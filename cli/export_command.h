// `nimble-prof export --format chrome run.db -o trace.json`: flags over workflow::ExportChrome, progress
// on stderr and one summary line per run on stdout.
#pragma once

#include "command.h"

namespace nimble::cli {

void RegisterExportCommand(CLI::App& app, Action& action);

}  // namespace nimble::cli
