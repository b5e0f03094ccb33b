// Runs `profile` in this process (nimble-prof-model, which links libtorch): the model-profiling
// workflow with a progress printer, then the report and the headline on stdout.
#pragma once

#include "profile_command.h"

namespace nimble::cli {

int RunProfileInProcess(ProfileArgs& args);

}  // namespace nimble::cli
