// The tables of `nimble-prof diff`: the runs compared and the rule, the totals, idle time by cause,
// the kernels and ops that changed most (significant changes only). Printing only;
// every figure comes from the workflow's DiffResult.
#pragma once

#include <cstddef>
#include <ostream>

#include "nimble/workflow/diff.h"

namespace nimble::cli {

void PrintDiff(std::ostream& out, const workflow::DiffResult& result, size_t top);

}  // namespace nimble::cli
