// `nimble-prof calibrate run.db...`: flags over workflow::Calibrate, a table of each recorded case's
// measured latency against the prediction before and after the fit (and held out), --json, -o FILE.
#pragma once

#include "command.h"

namespace nimble::cli {

void RegisterCalibrateCommand(CLI::App& app, Action& action);

}  // namespace nimble::cli
