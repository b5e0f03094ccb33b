// `nimble-prof import FILE -o run.db [--json]`: a torch.profiler trace (JSON, plain or .gz) or an Nsight
// Systems SQLite export becomes a run of a run database; prints what was imported, what the source lacks,
// and the command to run next. Exit 1 on a bad input file, 2 on bad usage.
#pragma once

#include "command.h"

namespace nimble::cli {

void RegisterImportCommand(CLI::App& app, Action& action);

}  // namespace nimble::cli
