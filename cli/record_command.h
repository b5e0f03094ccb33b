// `nimble-prof record [-o run.db] [--kinds ...] [--iteration-range NAME] [--delay-ms N]
// [--capture-range NAME] -- program args...`: runs an unmodified CUDA program with the injection
// library (libnimble_inject.so) so that it records itself into the run database, then summarises.
// Builds without CUDA: it only prepares the environment and fork/execs the program.
#pragma once

#include "command.h"

namespace nimble::cli {

void RegisterRecordCommand(CLI::App& app, Action& action);

}  // namespace nimble::cli
