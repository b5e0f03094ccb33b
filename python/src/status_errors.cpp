#include "status_errors.h"

#include <pybind11/pybind11.h>

#include <string>

namespace nimble::python {

void ThrowStatus(const Status& status) {
  PyObject* type = PyExc_RuntimeError;
  switch (status.code()) {
    case StatusCode::kInvalidArgument:
    case StatusCode::kOutOfRange:
    case StatusCode::kDataLoss:
      type = PyExc_ValueError;
      break;
    case StatusCode::kNotFound:
      type = PyExc_FileNotFoundError;
      break;
    case StatusCode::kAlreadyExists:
      type = PyExc_FileExistsError;
      break;
    case StatusCode::kPermissionDenied:
      type = PyExc_PermissionError;
      break;
    case StatusCode::kUnimplemented:
      type = PyExc_NotImplementedError;
      break;
    default:
      break;
  }
  const std::string message(status.message());
  PyErr_SetString(type, message.c_str());
  throw pybind11::error_already_set();
}

}  // namespace nimble::python
