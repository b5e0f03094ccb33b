// Chooses the NVTX range that marks iterations when the user names none: the text that repeats most
// often without overlapping itself (ties: the larger total time). Pure function of the trace.
#pragma once

#include <string>

#include "nimble/core/trace.h"

namespace nimble::cli {

// Empty when no range text occurs at least twice without overlap.
std::string DetectIterationRange(const Trace& trace);

}  // namespace nimble::cli
