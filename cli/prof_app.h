// The command line of nimble-prof (and of nimble-prof-model, which runs only `profile`): subcommands,
// the `nimble-prof model.pt` shorthand, parsing and exit codes, shared by both executables.
#pragma once

#include "profile_command.h"

namespace nimble::cli {

// `profile_runner` empty: nimble-prof (every subcommand; `profile` hands over to nimble-prof-model).
// Set: nimble-prof-model (only `profile`, run by `profile_runner`).
int ProfMain(int argc, char** argv, const ProfileRunner& profile_runner);

}  // namespace nimble::cli
