// nimble._C: thin bindings over the workflow library and the tensor runner; the Python package
// (python/nimble) is the public surface and holds no analysis of its own.
#include <torch/csrc/utils/pybind.h>

#include "bindings.h"

PYBIND11_MODULE(_C, m) {
  m.doc() = "Nimble's C++ workflows (use the nimble package, not this module)";
  m.attr("__version__") = NIMBLE_VERSION_STRING;
  m.attr("torch_version") = NIMBLE_TORCH_VERSION_STRING;
  nimble::python::BindReports(m);
  nimble::python::BindModels(m);
  nimble::python::BindRunner(m);
  nimble::python::BindInterop(m);
  nimble::python::BindPlan(m);
}
