// Whether a frozen model can be captured into a CUDA graph at all: ops that wait for the host (a
// GPU value read into a number, a copy to the CPU) or whose output shape depends on data (nonzero,
// masked_select, unique) cannot be replayed. Checked before any capture so the refusal names the op.
// Pure function of the graph; thread-safe on distinct models.
#pragma once

#include "nimble/accelerate/loaded_model.h"
#include "nimble/core/status.h"

namespace nimble::accelerate {

// OK, or FailedPrecondition: "<file>: cannot capture aten::nonzero (`...source...`): output shape
// depends on the data". Reads of host-side numbers (aten::Int of a size) are allowed.
Status CheckCapturable(const LoadedModel& model);

}  // namespace nimble::accelerate
