// The pieces of the nimble._C module, one per file: reports of recorded runs (no GPU needed), the
// model workflows (profile, accelerate), the tensor runner, trace import, export and diff, and the
// plan step over a graph built in Python.
#pragma once

#include <pybind11/pybind11.h>

namespace nimble::python {

void BindReports(pybind11::module_& m);
void BindModels(pybind11::module_& m);
void BindRunner(pybind11::module_& m);
void BindInterop(pybind11::module_& m);
void BindPlan(pybind11::module_& m);

}  // namespace nimble::python
