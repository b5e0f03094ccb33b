// Statuses become Python exceptions with the message the command-line tools print, as the built-in
// exception each code means: ValueError for bad input, FileNotFoundError, PermissionError,
// NotImplementedError, RuntimeError for a world not in the state the call needs (no GPU, a model that
// cannot be captured). Call with the GIL held.
#pragma once

#include <utility>

#include "nimble/core/status.h"

namespace nimble::python {

[[noreturn]] void ThrowStatus(const Status& status);

inline void Check(const Status& status) {
  if (!status.ok()) ThrowStatus(status);
}

template <typename T>
T Unwrap(StatusOr<T> value) {
  if (!value.ok()) ThrowStatus(value.status());
  return std::move(*value);
}

}  // namespace nimble::python
