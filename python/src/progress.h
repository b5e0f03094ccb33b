// A workflow's progress forwarded to a Python callable, called as callback(kind, stage, message, done,
// total) with kind "step", "tick" or "warning". The workflow runs with the GIL released; each update
// takes it back for the call. An exception raised by the callable is reported as unraisable (the work
// goes on) rather than thrown through the C++ workflow.
#pragma once

#include <pybind11/pybind11.h>

#include "nimble/workflow/progress.h"

namespace nimble::python {

// An empty ProgressFn when `callback` is None.
workflow::ProgressFn ForwardProgress(pybind11::object callback);

}  // namespace nimble::python
